/**
 * The one rule for where merchant callbacks may go (docs/callbacks.md, "Where
 * callbacks may go"): checked when a callback_url is set and again, against
 * the resolved address, when a callback is sent.
 */
import { describe, expect, it } from 'vitest';
import { callbackAddressProblem, callbackUrlProblem, type CallbackUrlPolicy } from '../../../src-main/callbacks/callback-url-policy';

const off: CallbackUrlPolicy = { allowPrivate: false, ownListeners: [{ host: '127.0.0.1', port: 8787 }], localAddresses: ['192.168.1.20'] };
const on: CallbackUrlPolicy = { ...off, allowPrivate: true };

const HINT = /allowed only after `merchant-console callback policy --allow-private`/;

describe('callback URL policy', () => {
  it.each([
    // url, problem with private addresses refused (default), problem with them allowed
    ['https://shop.example/cb', null, null],
    ['http://203.0.113.5:8080/cb', null, null],
    ['http://172.32.0.1/cb', null, null],
    ['ftp://shop.example/cb', /must be an http:\/\/ or https:\/\/ URL/, /must be an http:\/\/ or https:\/\/ URL/],
    ['not a url', /must be an http:\/\/ or https:\/\/ URL/, /must be an http:\/\/ or https:\/\/ URL/],
    // Credentials would be stored and printed back by merchant list / update.
    ['http://user:pw@shop.example/cb', /must not contain a user name or password/, /must not contain a user name or password/],
    ['https://user@shop.example/cb', /must not contain a user name or password/, /must not contain a user name or password/],
    ['https://:pw@shop.example/cb', /must not contain a user name or password/, /must not contain a user name or password/],
    // Never: link-local (cloud metadata), unspecified (0.0.0.0 connects to this machine), multicast, broadcast, metadata hosts.
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/, /link-local/],
    ['http://[fe80::1]/cb', /link-local/, /link-local/],
    ['http://[::ffff:169.254.169.254]/cb', /link-local/, /link-local/],
    ['http://[64:ff9b::a9fe:a9fe]/cb', /link-local/, /link-local/],
    ['http://100.100.100.200/latest/meta-data/', /cloud metadata/, /cloud metadata/],
    ['http://0.0.0.0:9000/cb', /unspecified/, /unspecified/],
    ['http://0:9000/cb', /unspecified/, /unspecified/],
    ['http://[::]:9000/cb', /unspecified/, /unspecified/],
    ['http://224.0.0.1/cb', /multicast/, /multicast/],
    ['http://255.255.255.255/cb', /reserved/, /reserved/],
    // Loopback and private ranges: only behind the setting.
    ['http://127.0.0.1:9000/cb', /127\.0\.0\.1 is a loopback address/, null],
    ['http://0x7f.1:9000/cb', /loopback/, null],
    ['http://[::1]:9000/cb', /loopback/, null],
    ['http://[::ffff:127.0.0.1]:9000/cb', /loopback/, null],
    ['http://localhost:9000/cb', /localhost is a loopback address/, null],
    ['http://LOCALHOST.:9000/cb', /loopback/, null],
    ['http://hooks.localhost:9000/cb', /loopback/, null],
    ['http://10.1.2.3/cb', /10\.1\.2\.3 is a private address/, null],
    ['http://172.16.0.1/cb', /private/, null],
    ['http://172.31.255.255/cb', /private/, null],
    ['http://192.168.1.20:9000/cb', /private/, null],
    ['http://[fd12::1]/cb', /private/, null],
    // The service's own listener, whatever the setting: on loopback any loopback address or name reaches it.
    ['http://127.0.0.1:8787/channel/notify/1', /127\.0\.0\.1:8787 is this service's own listener/, /own listener/],
    ['http://localhost:8787/channel/notify/1', /own listener/, /own listener/],
    ['http://[::1]:8787/channel/notify/1', /own listener/, /own listener/],
    ['http://127.0.0.2:8787/channel/notify/1', /own listener/, /own listener/],
  ] as const)('%s', (url, whenRefused, whenAllowed) => {
    const check = (problem: string | null, expected: RegExp | null) => (expected === null ? expect(problem).toBeNull() : expect(problem).toMatch(expected));
    check(callbackUrlProblem(url, off), whenRefused);
    check(callbackUrlProblem(url, on), whenAllowed);
    const refused = callbackUrlProblem(url, off);
    // The hint names the setting only where the setting would help.
    if (refused !== null) expect(HINT.test(refused)).toBe(whenAllowed === null);
  });

  it('knows a listener on every interface, and one behind a public URL, by each of their addresses and names', () => {
    const wildcard: CallbackUrlPolicy = { allowPrivate: true, ownListeners: [{ host: '0.0.0.0', port: 8787 }], localAddresses: ['192.168.1.20', 'fd00::20'] };
    expect(callbackUrlProblem('http://192.168.1.20:8787/channel/notify/1', wildcard)).toMatch(/own listener/);
    expect(callbackUrlProblem('http://[fd00::20]:8787/x', wildcard)).toMatch(/own listener/);
    expect(callbackUrlProblem('http://127.0.0.1:8787/x', wildcard)).toMatch(/own listener/);
    expect(callbackUrlProblem('http://192.168.1.21:8787/x', wildcard)).toBeNull();
    expect(callbackUrlProblem('http://192.168.1.20:8788/x', wildcard)).toBeNull();

    const proxied: CallbackUrlPolicy = { allowPrivate: false, ownListeners: [{ host: 'pay.example.com', port: 443 }], localAddresses: [] };
    expect(callbackUrlProblem('https://PAY.example.com./channel/notify/1', proxied)).toMatch(/own listener/);
    expect(callbackUrlProblem('http://pay.example.com/cb', proxied)).toBeNull();
  });

  it('checks a resolved address the same way (delivery: a name must not lead where a literal may not)', () => {
    expect(callbackAddressProblem('93.184.216.34', 443, off)).toBeNull();
    expect(callbackAddressProblem('169.254.169.254', 80, on)).toMatch(/link-local/);
    expect(callbackAddressProblem('127.0.0.1', 9000, off)).toMatch(HINT);
    expect(callbackAddressProblem('127.0.0.1', 9000, on)).toBeNull();
    expect(callbackAddressProblem('::ffff:7f00:1', 8787, on)).toMatch(/own listener/);
    expect(callbackAddressProblem('10.0.0.7', 80, off)).toMatch(/private/);
  });
});
