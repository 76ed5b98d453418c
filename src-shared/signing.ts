/**
 * The request-signing canonical string (docs/api.md, "Signing"). Pure and
 * runtime-neutral: the hash itself lives in src-shared/client/sign.ts
 * (Node) so the renderer never pulls in node:crypto.
 */
import { JsonDecimal, stringifyForSigning, type JsonValue } from './json/lossless-json';

export const SIGN_TYPES = ['hmac-sha256', 'md5'] as const;
export type SignType = (typeof SIGN_TYPES)[number];
export const DEFAULT_SIGN_TYPE: SignType = 'hmac-sha256';

export type SigningParams = Readonly<Record<string, JsonValue | undefined>>;

/** Compare two strings by Unicode code point, which is UTF-8 byte order. */
export function compareByteOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length - b.length;
}

export function signingValueText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof JsonDecimal) return value.text;
  return stringifyForSigning(value);
}

/**
 * `name=value` pairs sorted by name in byte order, joined with `&`, with
 * `&api_secret=<secret>` appended. `signature` and members whose value is
 * null, undefined or the empty string are left out.
 */
export function buildSigningString(params: SigningParams, secret: string): string {
  const names = Object.keys(params)
    .filter((name) => {
      if (name === 'signature') return false;
      const v = params[name];
      return v !== null && v !== undefined && v !== '';
    })
    .sort(compareByteOrder);
  const pairs = names.map((name) => `${name}=${signingValueText(params[name]!)}`);
  pairs.push(`api_secret=${secret}`);
  return pairs.join('&');
}
