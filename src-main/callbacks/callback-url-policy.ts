/**
 * Where merchant callbacks may go (docs/callbacks.md, "Where callbacks may
 * go"): the one rule, checked when a callback_url is set (console, CLI) and
 * again when a callback is sent, then against every address the host name
 * resolved to, so DNS cannot lead around it. Pure: the caller says what is
 * allowed and where this service listens.
 *
 *  - http or https, without user name or password (they would be stored and
 *    printed back in clear; the receiver checks the signature instead);
 *  - never link-local (169.254/16, fe80::/10: cloud metadata services), known
 *    metadata hosts, unspecified (0.0.0.0 reaches this machine), multicast or
 *    reserved addresses, nor this service's own listener;
 *  - loopback (127/8, ::1, localhost) and private ranges (10/8, 172.16/12,
 *    192.168/16, 100.64/10, fc00::/7) only when the data dir's setting allows
 *    them: in-house receivers are common, but so are internal services an
 *    outsider should not reach through the service.
 */
import { BlockList, isIP } from 'node:net';

export interface ListenerEndpoint {
  /** An address, a wildcard (0.0.0.0, ::) for every address of this machine, or a name (the public URL's). */
  host: string;
  port: number;
}

export interface CallbackUrlPolicy {
  /** Loopback and private ranges allowed (setting `callbacks.allow_private`). */
  allowPrivate: boolean;
  /** Where this service answers: never a callback target. */
  ownListeners: readonly ListenerEndpoint[];
  /** This machine's interface addresses: what a listener on a wildcard answers on. */
  localAddresses: readonly string[];
}

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

const RANGES: [Exclude<AddressKind, 'public'>, string[]][] = [
  // Cloud metadata services outside link-local: Alibaba Cloud, AWS over IPv6 (inside fc00::/7).
  ['metadata', ['100.100.100.200/32', 'fd00:ec2::254/128']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['240.0.0.0/4']],
];

/** One BlockList per kind. An IPv4 range also covers its IPv4-mapped (::ffff:…) and NAT64 (64:ff9b::…) spellings. */
const LISTS: [Exclude<AddressKind, 'public'>, BlockList][] = RANGES.map(([kind, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/') as [string, string];
    if (isIP(address) === 4) {
      list.addSubnet(address, Number(bits), 'ipv4'); // BlockList matches ::ffff:a.b.c.d against it too
      list.addSubnet(`64:ff9b::${address}`, 96 + Number(bits), 'ipv6');
    } else {
      list.addSubnet(address, Number(bits), 'ipv6');
    }
  }
  return [kind, list];
});

export function addressKind(address: string): AddressKind {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find(([, list]) => list.check(address, family))?.[0] ?? 'public';
}

const NEVER: ReadonlySet<AddressKind> = new Set(['link-local', 'metadata', 'unspecified', 'multicast', 'reserved']);

const KIND_WORDS: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address (where cloud metadata services answer)',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address (it reaches this machine)',
  multicast: 'a multicast address',
  reserved: 'a reserved or broadcast address',
};

const ALLOW_PRIVATE_HINT = 'allowed only after `merchant-console callback policy --allow-private` (docs/callbacks.md)';

/** `localhost` and its subdomains always mean this machine (RFC 6761). */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Lower case, without IPv6 brackets or a trailing dot. */
function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

function sameAddress(a: string, b: string): boolean {
  if (isIP(a) === 0 || isIP(b) === 0) return false;
  const list = new BlockList();
  list.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  return list.check(b, isIP(b) === 6 ? 'ipv6' : 'ipv4');
}

/** Does `host` (an address or a name) on `port` reach one of this service's listeners? */
function isOwnListener(host: string, port: number, policy: CallbackUrlPolicy): boolean {
  const loopback = isIP(host) ? addressKind(host) === 'loopback' || addressKind(host) === 'unspecified' : isLocalhostName(host);
  return policy.ownListeners.some((listener) => {
    if (listener.port !== port) return false;
    const own = normaliseHost(listener.host);
    if (own === host || sameAddress(own, host)) return true;
    // Bound to every interface: any of this machine's addresses reaches it.
    if (own === '0.0.0.0' || own === '::') return loopback || policy.localAddresses.some((address) => sameAddress(address, host));
    // Bound to loopback: so is every loopback address and name, as far as a callback target goes.
    const ownLoopback = isIP(own) ? addressKind(own) === 'loopback' : isLocalhostName(own);
    return ownLoopback && loopback;
  });
}

/**
 * What is wrong with sending to `host` on `port`, or null. `host` is an
 * address or a name; `resolvedFrom` names the host name an address was
 * resolved from (at delivery), for the message.
 */
export function callbackAddressProblem(host: string, port: number, policy: CallbackUrlPolicy, resolvedFrom?: string): string | null {
  const target = normaliseHost(host);
  const kind = isIP(target) ? addressKind(target) : isLocalhostName(target) ? 'loopback' : 'public';
  const shown = isIP(target) === 6 ? `[${target}]` : target;
  if (isOwnListener(target, port, policy)) {
    const where = resolvedFrom ? `${resolvedFrom}:${port} (${target})` : `${shown}:${port}`;
    return `${where} is this service's own listener; callbacks never go there`;
  }
  if (kind === 'public') return null;
  const subject = resolvedFrom ? `${resolvedFrom} (${target})` : target;
  if (NEVER.has(kind)) return `${subject} is ${KIND_WORDS[kind]}; callbacks never go there`;
  return policy.allowPrivate ? null : `${subject} is ${KIND_WORDS[kind]}; ${ALLOW_PRIVATE_HINT}`;
}

/** What is wrong with `text` as a callback URL, or null. Literal addresses are checked here; names when resolved. */
export function callbackUrlProblem(text: string, policy: CallbackUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (url.username !== '' || url.password !== '') {
    return 'must not contain a user name or password (they would be stored and shown in clear); the receiver checks the signature instead';
  }
  return callbackAddressProblem(url.hostname, urlPort(url), policy);
}

/**
 * A callback URL as it is shown (merchant views, callback deliveries): a user
 * name or password masked as `***`. New ones are refused above, but a URL
 * stored before that rule may still hold them (it is never delivered to:
 * every attempt checks the rule).
 */
export function shownCallbackUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (url.username === '' && url.password === '') return text;
  url.username = '***';
  url.password = '';
  return url.href;
}

export function urlPort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The endpoint of a URL this service answers on (its listening URL, its public URL). */
export function endpointOfUrl(text: string): ListenerEndpoint | null {
  try {
    const url = new URL(text);
    return { host: normaliseHost(url.hostname), port: urlPort(url) };
  } catch {
    return null;
  }
}
