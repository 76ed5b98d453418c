import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRegionPayload, negotiateEncoding, type RegionEncoding } from '../../../src-main/regions/region-payload';

describe('negotiateEncoding', () => {
  const table: [string | undefined, RegionEncoding][] = [
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['BR;q=1, GZIP', 'br'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['deflate', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity', 'identity'],
    ['identity;q=1, gzip;q=0.5', 'identity'],
    ['identity;q=0, gzip;q=0.1', 'gzip'],
    ['*;q=0', 'identity'], // nothing acceptable: identity rather than a 406
    ['gzip;q=0.001, *;q=0', 'gzip'],
    ['gzip ; q=0.9 , br ; q=0.9', 'br'],
    ['gzip;q=abc', 'gzip'], // a malformed q is ignored, not fatal
  ];
  for (const [header, expected] of table) {
    it(`answers ${JSON.stringify(header)} with ${expected}`, () => {
      expect(negotiateEncoding(header)).toBe(expected);
    });
  }
});

describe('createRegionPayload', () => {
  const body = Buffer.from(JSON.stringify({ code: 1, msg: 'success', data: { 北京市: { val: '110000', items: {} } } }).repeat(50));

  it('gives a strong ETag per coding, derived from the content', () => {
    const p = createRegionPayload(body);
    expect(p.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(p.etagFor('identity')).toBe(p.etag);
    expect(p.etagFor('gzip')).toBe(`${p.etag.slice(0, -1)}-gzip"`);
    expect(p.etagFor('br')).toBe(`${p.etag.slice(0, -1)}-br"`);
    expect(createRegionPayload(Buffer.from(body)).etag).toBe(p.etag);
    expect(createRegionPayload(Buffer.concat([body, Buffer.from(' ')])).etag).not.toBe(p.etag);
  });

  it('matches If-None-Match lists, weak prefixes and *, and nothing else', () => {
    const p = createRegionPayload(body);
    expect(p.matches(undefined)).toBe(false);
    expect(p.matches('')).toBe(false);
    expect(p.matches(p.etag)).toBe(true);
    expect(p.matches(`W/${p.etag}`)).toBe(true);
    expect(p.matches(`"other", ${p.etagFor('br')}`)).toBe(true);
    expect(p.matches('*')).toBe(true);
    expect(p.matches(p.etag.slice(1, -1))).toBe(false); // unquoted is not the same tag
    expect(p.matches('"other"')).toBe(false);
  });

  it('compresses once per coding, to bodies that decompress to the identity bytes', async () => {
    const p = createRegionPayload(body);
    const [gz1, gz2] = await Promise.all([p.body('gzip'), p.body('gzip')]);
    expect(gz1).toBe(gz2);
    expect(gunzipSync(gz1).equals(body)).toBe(true);
    const br = await p.body('br');
    expect(brotliDecompressSync(br).equals(body)).toBe(true);
    expect(br.length).toBeLessThan(body.length);
    expect(await p.body('identity')).toBe(body);
  });
});
