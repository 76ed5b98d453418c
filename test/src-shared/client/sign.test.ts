import { describe, expect, it } from 'vitest';
import { computeSignature, verifySignature } from '../../../src-shared/client/sign';
import { parseJsonLossless, type JsonObject } from '../../../src-shared/json/lossless-json';
import { buildSigningString, compareByteOrder } from '../../../src-shared/signing';

const ISSUE_EXAMPLE_BODY =
  '{"api_key":"mk_demo_0001","timestamp":1767225600,"nonce":"n0nce-123","order_type":1,"cny_amount":"100.50","paychannel_id":3,"paychannel_paymethod":"alipay","customer_name":"张三"}';

describe('request signature', () => {
  const body = parseJsonLossless(ISSUE_EXAMPLE_BODY) as JsonObject;

  it('builds the canonical string of the documented example', () => {
    expect(buildSigningString(body, 'sk_demo_secret')).toBe(
      'api_key=mk_demo_0001&cny_amount=100.50&customer_name=张三&nonce=n0nce-123&order_type=1&paychannel_id=3&paychannel_paymethod=alipay&timestamp=1767225600&api_secret=sk_demo_secret',
    );
  });

  it('produces the documented md5 and hmac-sha256 signatures', () => {
    expect(computeSignature(body, 'sk_demo_secret', 'md5')).toBe('89AB84DE3F073D1CDDD7FEA4CF27FA42');
    expect(computeSignature(body, 'sk_demo_secret', 'hmac-sha256')).toBe('32ACFB7D59C021888A5D110CF00C41B292430795C4C7D251F672357401874833');
  });

  it('ignores the signature member itself, nulls and empty strings', () => {
    const withExtras = { ...body, signature: 'whatever', note: '', other: null };
    expect(computeSignature(withExtras, 'sk_demo_secret')).toBe(computeSignature(body, 'sk_demo_secret'));
  });

  it('keeps number text losslessly: 100.50 and 100.5 sign differently', () => {
    const a = parseJsonLossless('{"cny_amount":100.50}') as JsonObject;
    const b = parseJsonLossless('{"cny_amount":100.5}') as JsonObject;
    expect(buildSigningString(a, 's')).toBe('cny_amount=100.50&api_secret=s');
    expect(computeSignature(a, 's')).not.toBe(computeSignature(b, 's'));
  });

  // Own vectors: nested objects in received order with "/" escaped, booleans, and byte-order sorting.
  it.each([
    [
      '{"b":true,"a":{"y":"1/2","x":[1,"张"]},"A":"up"}',
      'A=up&a={"y":"1\\/2","x":[1,"张"]}&b=true&api_secret=k',
    ],
    ['{"é":"1","z":"2","_":"3"}', '_=3&z=2&é=1&api_secret=k'],
    ['{"amount":1e3,"s":"a b&c=d"}', 'amount=1e3&s=a b&c=d&api_secret=k'],
  ])('canonical string of %s', (json, expected) => {
    expect(buildSigningString(parseJsonLossless(json) as JsonObject, 'k')).toBe(expected);
  });

  it('verifies in both types, case-insensitively, and refuses a wrong one', () => {
    for (const type of ['md5', 'hmac-sha256'] as const) {
      const sig = computeSignature(body, 'sk_demo_secret', type);
      expect(verifySignature(body, sig, 'sk_demo_secret', type)).toBe(true);
      expect(verifySignature(body, sig.toLowerCase(), 'sk_demo_secret', type)).toBe(true);
      expect(verifySignature(body, sig, 'other_secret', type)).toBe(false);
      expect(verifySignature(body, sig.slice(1), 'sk_demo_secret', type)).toBe(false);
    }
    // A signature of the other type does not pass.
    expect(verifySignature(body, computeSignature(body, 'sk_demo_secret', 'md5'), 'sk_demo_secret', 'hmac-sha256')).toBe(false);
  });

  it('sorts by UTF-8 byte order (code points), not UTF-16 units', () => {
    // U+FF21 (fullwidth A) sorts before U+1F600 in UTF-8 but after it in UTF-16 units.
    expect(['😀', 'Ａ'].sort(compareByteOrder)).toEqual(['Ａ', '😀']);
    expect(['b', 'B', 'a_', 'a'].sort(compareByteOrder)).toEqual(['B', 'a', 'a_', 'b']);
  });
});
