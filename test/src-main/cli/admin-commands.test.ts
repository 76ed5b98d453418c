import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { parseJsonLossless, type JsonObject } from '../../../src-shared/json/lossless-json';
import { cli } from '../../support/cli-harness';
import { newBuy } from '../../support/money';
import { read, seedMerchant, testService, write } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

describe('admin CLI', () => {
  it('creates merchants and channels, links them and lists them as JSON with snake_case keys', async () => {
    const dir = tempDir();
    const m = await cli(['merchant', 'create', '--name', 'Shop', '--callback-url', 'https://shop.example/cb', '--data-dir', dir, '--json']);
    expect(m.code).toBe(0);
    const merchant = m.json();
    expect(Object.keys(merchant)).toEqual(expect.arrayContaining(['id', 'name', 'api_key', 'api_secret', 'sign_type', 'callback_url']));
    expect(merchant).toMatchObject({ id: 1, name: 'Shop', sign_type: 'hmac-sha256', callback_url: 'https://shop.example/cb' });
    expect(merchant.api_key).toMatch(/^mk_[0-9a-f]{24}$/);
    // >= 32 random bytes, base64url
    expect((merchant.api_secret as string).slice(3)).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const c = await cli([
      'channel', 'create', '--category', 'alpha', '--name', 'A1', '--pay-methods', 'bank,wxpay', '--service-rate', '0.0060',
      '--passage-rate=-0.001', '--deposit-rate', '50', '--base-rate', '30', '--min-amount', '1', '--max-amount', '5000',
      '--config-json', '{"merchant_no":"123","key":"topsecretkey"}', '--data-dir', dir, '--json',
    ]);
    expect(c.code).toBe(0);
    expect(c.json()).toMatchObject({
      id: 1,
      category: 'alpha',
      name: 'A1',
      pay_method: 'wxpay,bank',
      category_text: 'Alpha',
      pay_method_text: 'Wxpay,Bank',
      service_rate: '0.006',
      passage_rate: '-0.001',
      deposit_rate: 50,
      base_rate: 30,
      min_amount: '1.00',
      max_amount: '5000.00',
      enabled: true,
    });
    expect(c.stdout).not.toContain('topsecretkey');

    const link = await cli(['channel', 'link', '--merchant', '1', '--channel', '1', '--service-rate', '0.004', '--data-dir', dir, '--json']);
    expect(link.json()).toMatchObject({ merchant_id: 1, channel_id: 1, service_rate: '0.004', effective: { service_rate: '0.004', passage_rate: '-0.001' } });
    // Re-linking replaces the overrides with exactly the ones given (docs/api.md): none → the channel's own.
    const relinked = await cli(['channel', 'link', '--merchant', '1', '--channel', '1', '--data-dir', dir, '--json']);
    expect(relinked.json()).toMatchObject({ service_rate: null, effective: { service_rate: expect.not.stringMatching(/^0\.004$/) } });
    await cli(['channel', 'link', '--merchant', '1', '--channel', '1', '--service-rate', '0.004', '--data-dir', dir]);

    // Conflicting or missing changes were accepted ("merchant 1 updated", exit 0): --no-callback silently won.
    const refused: [string[], string][] = [
      [['merchant', 'update', '1', '--callback-url', 'https://other.example/cb', '--no-callback'], '--callback-url and --no-callback exclude each other'],
      [['merchant', 'update', '1'], 'nothing to change: give at least one of --name, --callback-url, --no-callback, --sign-type, --enable, --disable'],
      [['channel', 'update', '1'], 'nothing to change: give at least one of --name, --pay-methods, --service-rate'],
    ];
    for (const [argv, message] of refused) {
      const r = await cli([...argv, '--data-dir', dir]);
      expect([r.code, r.stdout, r.stderr.split('\n')[0]], argv.join(' ')).toEqual([2, '', expect.stringContaining(message)]);
    }

    const list = await cli(['merchant', 'list', '--data-dir', dir, '--json']);
    const merchants = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(merchants).toHaveLength(1);
    expect(merchants[0]).toMatchObject({ callback_url: 'https://shop.example/cb' });
    expect(list.stdout).not.toContain(merchant.api_secret as string);

    const human = await cli(['channel', 'list', '--data-dir', dir]);
    expect(human.stdout).toMatch(/^id\s+category\s+name/);

    const unlink = await cli(['channel', 'unlink', '--merchant', '1', '--channel', '1', '--data-dir', dir, '--json']);
    expect(unlink.json()).toEqual({ merchant_id: 1, channel_id: 1, unlinked: true });
    const again = await cli(['channel', 'unlink', '--merchant', '1', '--channel', '1', '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('channel_id: channel 1 is not linked to merchant 1');
  });

  it('callback URLs: no credentials, never link-local or the service itself; loopback and private ranges only after `callback policy --allow-private`', async () => {
    const dir = tempDir();
    const run = (...argv: string[]) => cli([...argv, '--data-dir', dir]);
    expect((await run('merchant', 'create', '--name', 'Shop')).code).toBe(0);
    const refusedAlways: [string, string][] = [
      ['https://hook:s3cr3t-pw@shop.example/cb', 'callback_url: must not contain a user name or password'],
      ['http://169.254.169.254/latest/meta-data/', 'callback_url: 169.254.169.254 is a link-local address'],
      // The stored listener settings (default 127.0.0.1:8787): the service's own /channel/notify.
      ['http://127.0.0.1:8787/channel/notify/1', "callback_url: 127.0.0.1:8787 is this service's own listener"],
    ];
    const refusedByDefault: [string, string][] = [
      ['http://127.0.0.1:9000/cb', 'callback_url: 127.0.0.1 is a loopback address; allowed only after `merchant-console callback policy --allow-private`'],
      ['http://10.0.0.5/cb', 'callback_url: 10.0.0.5 is a private address'],
    ];
    for (const [url, message] of [...refusedAlways, ...refusedByDefault]) {
      for (const argv of [['merchant', 'update', '1', '--callback-url', url], ['merchant', 'create', '--name', 'Other', '--callback-url', url]]) {
        const r = await run(...argv);
        expect([r.code, r.stdout, r.stderr], argv.join(' ')).toEqual([1, '', expect.stringContaining(message)]);
      }
    }
    // Nothing was stored, and nothing with a password is ever printed back.
    const listed = await run('merchant', 'list', '--json');
    expect(listed.json()).toEqual([expect.objectContaining({ id: 1, callback_url: null })]);
    expect(listed.stdout).not.toContain('s3cr3t');

    expect((await run('callback', 'policy', '--json')).json()).toEqual({ allow_private: false });
    const allowed = await run('callback', 'policy', '--allow-private');
    expect([allowed.code, allowed.stdout.trim()]).toEqual([0, 'callbacks to loopback and private addresses: allowed']);
    for (const [url] of refusedByDefault) expect((await run('merchant', 'update', '1', '--callback-url', url)).code, url).toBe(0);
    for (const [url, message] of refusedAlways) expect((await run('merchant', 'update', '1', '--callback-url', url)).stderr, url).toContain(message);
    expect((await run('callback', 'policy', '--refuse-private', '--json')).json()).toEqual({ allow_private: false });
    expect((await run('merchant', 'update', '1', '--callback-url', 'http://192.168.0.9/cb')).stderr).toContain('192.168.0.9 is a private address');
    const both = await run('callback', 'policy', '--allow-private', '--refuse-private');
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--allow-private and --refuse-private exclude each other')]);
  });

  it('a callback URL with a password stored before the rule is never printed back: merchant list, update, order show', async () => {
    const dir = tempDir();
    const service = await testService({ dataDir: dir });
    const m = await seedMerchant(service);
    const order = await newBuy(service, m);
    // As an older version stored it; the rule now refuses it at input.
    await write(service, (tx) => tx.run('UPDATE merchants SET callback_url = ? WHERE id = ?', ['https://hook:s3cr3t-pw@shop.example/cb', m.id]));
    await write(service, (tx) => service.services.sandbox.simulate(tx, order.order_no, 'pay')); // a callback delivery to it
    const run = (...argv: string[]) => cli([...argv, '--data-dir', dir]);

    const outputs = [
      await run('merchant', 'list'),
      await run('merchant', 'list', '--json'),
      await run('merchant', 'update', String(m.id), '--name', 'Renamed', '--json'),
      await run('order', 'show', order.order_no, '--json'),
    ];
    for (const r of outputs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('s3cr3t');
    }
    expect(outputs[1]!.json()).toEqual([expect.objectContaining({ callback_url: 'https://***@shop.example/cb' })]);
    expect(outputs[2]!.json()).toMatchObject({ name: 'Renamed', callback_url: 'https://***@shop.example/cb' });
    expect((outputs[3]!.json() as { callbacks: { url: string }[] }).callbacks.map((c) => c.url)).toEqual(['https://***@shop.example/cb']);
    // Masked when shown only: the stored URL is as it was (and refused at every delivery attempt).
    expect(await read(service, (tx) => tx.get('SELECT callback_url FROM merchants WHERE id = ?', [m.id]))).toEqual({ callback_url: 'https://hook:s3cr3t-pw@shop.example/cb' });
  });

  it('rotates a secret: the new one is shown once and the old one stops verifying', async () => {
    const dir = tempDir();
    const first = (await cli(['merchant', 'create', '--name', 'Shop', '--data-dir', dir, '--json'])).json();
    const rotated = (await cli(['merchant', 'rotate-secret', '1', '--data-dir', dir, '--json'])).json();
    expect(rotated.api_key).toBe(first.api_key);
    expect(rotated.api_secret).not.toBe(first.api_secret);
  });

  it('reports bad options on stderr with a non-zero exit and writes nothing', async () => {
    const dir = tempDir();
    const cases: [string[], number, string][] = [
      [['merchant', 'create', '--data-dir', dir], 2, '--name is required'],
      [['merchant', 'create', '--name', 'x', '--sign-type', 'sha1', '--data-dir', dir], 1, 'sign_type: must be one of hmac-sha256, md5'],
      [['merchant', 'create', '--name', 'x', '--callback-url', 'ftp://x', '--data-dir', dir], 1, 'callback_url: must be an http:// or https:// URL'],
      [['channel', 'create', '--category', 'delta', '--name', 'x', '--pay-methods', 'bank', '--data-dir', dir], 1, 'category: must be one of alpha, beta, gamma'],
      [['channel', 'create', '--category', 'beta', '--name', 'x', '--pay-methods', 'bank,card', '--data-dir', dir], 1, 'pay_methods.1: must be one of wxpay, alipay, bank'],
      [['channel', 'create', '--category', 'beta', '--name', 'x', '--pay-methods', 'bank', '--service-rate', '1.5', '--data-dir', dir], 1, 'service_rate: must be a decimal fraction'],
      [['channel', 'create', '--category', 'beta', '--name', 'x', '--pay-methods', 'bank', '--min-amount', '10', '--max-amount', '5', '--data-dir', dir], 1, 'max_amount: must not be below min_amount'],
      [['channel', 'link', '--merchant', '7', '--channel', '1', '--data-dir', dir], 1, 'merchant_id: merchant 7 not found'],
      [['merchant', 'rotate-secret', 'abc', '--data-dir', dir], 2, 'ID must be a positive integer id'],
      [['merchant', 'create', '--name', 'x', '--bogus', '--data-dir', dir], 2, "Unknown option '--bogus'"],
      // Like balance show: an unknown merchant is an error, not an empty list.
      [['payment-method', 'list', '--merchant', '7', '--data-dir', dir], 1, 'merchant_id: merchant 7 not found'],
    ];
    for (const [argv, code, message] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
    const list = await cli(['merchant', 'list', '--data-dir', dir, '--json']);
    expect(JSON.parse(list.stdout)).toEqual([]);
    const json = await cli(['merchant', 'create', '--data-dir', dir, '--json']);
    expect(JSON.parse(json.stderr)).toEqual({ error: '--name is required' });
  });

  it('signs a body read from stdin exactly like the service verifies it', async () => {
    const body = '{"api_key":"mk_demo_0001","timestamp":1767225600,"nonce":"n0nce-123","order_type":1,"cny_amount":"100.50","paychannel_id":3,"paychannel_paymethod":"alipay","customer_name":"张三"}';
    const hmac = await cli(['sign', '--secret', 'sk_demo_secret'], { stdin: body });
    expect(hmac.stdout).toBe('32ACFB7D59C021888A5D110CF00C41B292430795C4C7D251F672357401874833');
    const md5 = await cli(['sign', '--secret', 'sk_demo_secret', '--sign-type', 'md5', '--json'], { stdin: body });
    expect(md5.json()).toEqual({ signature: '89AB84DE3F073D1CDDD7FEA4CF27FA42', sign_type: 'md5' });
    const fromEnv = await cli(['sign'], { stdin: '{"a":1.50}', env: { MERCHANT_CONSOLE_API_SECRET: 'k' } });
    expect(fromEnv.stdout).toBe(computeSignature(parseJsonLossless('{"a":1.50}') as JsonObject, 'k'));
    expect((await cli(['sign', '--secret', 'k'], { stdin: '[1]' })).stderr).toContain('stdin must hold a JSON object');
    expect((await cli(['sign', '--secret', 'k'], { stdin: '{' })).code).toBe(2);
  });

  it('signs the query string with the body, for getPayChannels?category=…', async () => {
    const body = '{"api_key":"mk_demo_0001","timestamp":1767225600,"nonce":"n0nce-123"}';
    const expected = computeSignature({ ...(parseJsonLossless(body) as JsonObject), category: 'beta', note: 'a b/é' }, 'k');
    expect((await cli(['sign', '--secret', 'k', '--query', 'category=beta&note=a+b%2F%C3%A9'], { stdin: body })).stdout).toBe(expected);
    expect((await cli(['sign', '--secret', 'k', '--query', '?category=beta&note=a%20b/%C3%A9'], { stdin: body })).stdout).toBe(expected);
    const both = await cli(['sign', '--secret', 'k', '--query', 'nonce=x'], { stdin: body });
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--query: nonce is in the body too')]);
    const twice = await cli(['sign', '--secret', 'k', '--query', 'category=a&category=b'], { stdin: body });
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('--query: category is given more than once')]);
  });

  it('prints help and refuses unknown commands', async () => {
    expect((await cli(['--help'])).stdout).toContain('merchant create');
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command: frobnicate');
    // The message names the command words, not an option that follows them.
    const withOptions = await cli(['frobnicate', '--data-dir', tempDir(), '--json']);
    expect([withOptions.code, withOptions.stderr.split('\n')[0]]).toEqual([2, 'unknown command: frobnicate']);
    const group = await cli(['merchant', '--help']);
    expect([group.code, group.stderr.split('\n')[0]]).toEqual([2, 'unknown command: merchant (one of: merchant create, merchant list, merchant update, merchant limits, merchant rotate-secret)']);
    expect((await cli(['channel', 'create', '--help'])).stdout).toContain('usage: merchant-console channel create --category');
  });

  it('merchant limits sets the withdrawal thresholds (yuan; none: API withdrawals never held), audited as cli; bad values name the option', async () => {
    const dir = tempDir();
    const m = (await cli(['merchant', 'create', '--name', 'Limits', '--data-dir', dir, '--json'])).json() as { id: number };
    const set = await cli(['merchant', 'limits', String(m.id), '--console-threshold', '5000', '--api-threshold', '100.50', '--data-dir', dir, '--json']);
    expect(set.code).toBe(0);
    expect(set.json()).toMatchObject({ console_withdrawal_threshold: 500_000, api_withdrawal_threshold: 10_050 });
    const human = await cli(['merchant', 'limits', String(m.id), '--api-threshold', 'none', '--data-dir', dir]);
    expect(human.stdout).toBe(`merchant ${m.id}: console withdrawals above 5000.00 CNY and API withdrawals never wait for approval`);
    expect((await cli(['merchant', 'limits', String(m.id), '--console-threshold', '0', '--data-dir', dir, '--json'])).json()).toMatchObject({ console_withdrawal_threshold: 0 });
    const bad = await cli(['merchant', 'limits', String(m.id), '--console-threshold', '-5', '--data-dir', dir]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('console: must be 0 or more')]);
    const none = await cli(['merchant', 'limits', String(m.id), '--data-dir', dir]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('nothing to change: give at least one of --console-threshold, --api-threshold')]);
    const service = await testService({ dataDir: dir });
    const actions = await read(service, async (tx) => (await tx.all<{ action: string; actor_kind: string }>("SELECT * FROM audit_log WHERE action = 'merchant.limits'")).map((r) => r.actor_kind));
    expect(actions).toEqual(['cli', 'cli', 'cli']);
  });
});
