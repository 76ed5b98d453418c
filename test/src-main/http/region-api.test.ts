/**
 * The region endpoints over real HTTP on 127.0.0.1: shapes, caching
 * (ETag/304), content codings (raw bytes decompressed and compared), and
 * every error class. No signature anywhere: the data is public.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { regionTree, type RegionTree } from '../../../src-shared/schemas/region-api';
import { defaultRegionDataset } from '../../../src-main/regions/region-dataset';
import { testListener, testService } from '../../support/service-harness';

const REGION_PATH = '/addons/paychannel/channel/alpha';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET without fetch's automatic decompression, so the bytes on the wire can be checked. */
function rawGet(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function getJson(url: string) {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: unknown } };
}

async function setup(options: { basePath?: string } = {}) {
  const service = await testService();
  const listener = await testListener(service, options);
  const base = `${listener.url}${REGION_PATH}`;
  const list = (endpoint: string, query: Record<string, string> = {}) => getJson(`${base}/${endpoint}?${new URLSearchParams(query).toString()}`);
  return { service, listener, base, list };
}

describe('GET regionData', () => {
  it('serves the whole tree in the spec shape with caching headers', async () => {
    const { base } = await setup();
    const res = await rawGet(`${base}/regionData`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);

    const envelope = JSON.parse(res.body.toString('utf8')) as { code: number; msg: string; data: RegionTree };
    expect(envelope.code).toBe(1);
    expect(envelope.msg).toBe('success');
    expect(regionTree.safeParse(envelope.data).success).toBe(true);
    expect(envelope.data).toEqual(defaultRegionDataset().tree);
    expect(envelope.data['北京市']).toMatchObject({ val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } });
    expect(envelope.data['湖北省']!.items['仙桃市']).toEqual({ val: '429004', items: { 仙桃市: '429004' } });
    expect(Object.keys(envelope.data)).toHaveLength(31);
    // The key order on the wire is code order.
    expect(Object.values(envelope.data).map((p) => p.val)).toEqual(defaultRegionDataset().provinces.map((p) => p.code));
  });

  it('compresses with gzip or brotli when asked, to bytes that decompress to the identity body', async () => {
    const { base } = await setup();
    const plain = await rawGet(`${base}/regionData`);
    const gz = await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gz.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-gzip"`);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    const br = await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(gz.body.length);
    expect(gz.body.length).toBeLessThan(plain.body.length / 2);

    const refused = await rawGet(`${base}/regionData`, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
  });

  it('answers 304 with no body when If-None-Match names the current version', async () => {
    const { base } = await setup();
    const first = await rawGet(`${base}/regionData`, { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);

    const again = await rawGet(`${base}/regionData`, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe('public, max-age=3600');
    expect(again.headers.vary).toBe('Accept-Encoding');

    // Any representation's tag (e.g. cached uncompressed, now asking gzip), weak or in a list, still means "not modified".
    const plainTag = etag.replace(/-br"$/, '"');
    expect((await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip', 'if-none-match': `W/${plainTag}` })).status).toBe(304);
    expect((await rawGet(`${base}/regionData`, { 'if-none-match': `"stale", ${plainTag}` })).status).toBe(304);

    const stale = await rawGet(`${base}/regionData`, { 'if-none-match': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBeGreaterThan(70_000);
  });

  it('answers HEAD with the headers only', async () => {
    const { base } = await setup();
    const head = await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toMatch(/-gzip"$/);
    expect(head.body.length).toBe(0);
    const gzipped = await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip' });
    expect(head.headers['content-length']).toBe(String(gzipped.body.length));

    // A conditional HEAD: 304, and a Content-Length only if it is the 200's (RFC 9110 §8.6), never 0.
    const notModified = await rawGet(`${base}/regionData`, { 'accept-encoding': 'gzip', 'if-none-match': String(head.headers.etag) }, 'HEAD');
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(head.headers.etag);
    expect([undefined, String(gzipped.body.length)]).toContain(notModified.headers['content-length']);
  });

  it('takes no parameters', async () => {
    const { base } = await setup();
    const res = await getJson(`${base}/regionData?province=北京市`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 1001, msg: 'province: unknown parameter', data: null });
  });
});

describe('GET provinceList / cityList / districtList', () => {
  it('lists {name, code} in code order at each level', async () => {
    const { list } = await setup();
    const provinces = await list('provinceList');
    expect(provinces.status).toBe(200);
    expect(provinces.body.code).toBe(1);
    const data = provinces.body.data as { name: string; code: string }[];
    expect(data).toHaveLength(31);
    expect(data.slice(0, 3)).toEqual([
      { name: '北京市', code: '110000' },
      { name: '天津市', code: '120000' },
      { name: '河北省', code: '130000' },
    ]);
    expect(data.map((p) => p.code)).toEqual(data.map((p) => p.code).sort());

    expect((await list('cityList', { province: '北京市' })).body).toEqual({ code: 1, msg: 'success', data: [{ name: '北京市', code: '110100' }] });
    expect((await list('cityList', { province: '重庆市' })).body.data).toEqual([{ name: '重庆市', code: '500100' }]);
    const hubei = (await list('cityList', { province: '湖北省' })).body.data as { name: string; code: string }[];
    expect(hubei).toHaveLength(17);
    expect(hubei.at(-4)).toEqual({ name: '仙桃市', code: '429004' });

    expect((await list('districtList', { province: '湖北省', city: '仙桃市' })).body.data).toEqual([{ name: '仙桃市', code: '429004' }]);
    expect((await list('districtList', { province: '广东省', city: '东莞市' })).body.data).toEqual([{ name: '东莞市', code: '441900' }]);
    const chongqing = (await list('districtList', { province: '重庆市', city: '重庆市' })).body.data as { name: string; code: string }[];
    expect(chongqing).toHaveLength(38);
    expect(chongqing[0]).toEqual({ name: '万州区', code: '500101' });
    expect(chongqing.at(-1)).toEqual({ name: '彭水苗族土家族自治县', code: '500243' });
  });

  it('answers a missing parameter with 400 naming it', async () => {
    const { list } = await setup();
    expect(await list('cityList')).toEqual({ status: 400, body: { code: 1001, msg: 'province: is required', data: null } });
    expect(await list('cityList', { province: '' })).toEqual({ status: 400, body: { code: 1001, msg: 'province: is required (a province name)', data: null } });
    expect(await list('districtList', { province: '北京市' })).toEqual({ status: 400, body: { code: 1001, msg: 'city: is required', data: null } });
    expect(await list('districtList', { city: '北京市' })).toEqual({ status: 400, body: { code: 1001, msg: 'province: is required', data: null } });
  });

  it('answers an unknown name with 404 naming it', async () => {
    const { list } = await setup();
    expect(await list('cityList', { province: '北京' })).toEqual({ status: 404, body: { code: 3001, msg: 'province: no province named "北京"', data: null } });
    expect(await list('districtList', { province: '北京', city: '北京市' })).toMatchObject({ status: 404, body: { msg: 'province: no province named "北京"' } });
    expect(await list('districtList', { province: '北京市', city: '市辖区' })).toEqual({
      status: 404,
      body: { code: 3001, msg: 'city: province 北京市 has no city named "市辖区"', data: null },
    });
    expect(await list('districtList', { province: '广东省', city: '仙桃市' })).toMatchObject({ status: 404, body: { msg: 'city: province 广东省 has no city named "仙桃市"' } });
  });

  it('rejects unknown and repeated parameters', async () => {
    const { base, list } = await setup();
    expect(await list('provinceList', { page: '1' })).toEqual({ status: 400, body: { code: 1001, msg: 'page: unknown parameter', data: null } });
    expect(await list('cityList', { province: '北京市', city: '北京市' })).toMatchObject({ status: 400, body: { msg: 'city: unknown parameter' } });
    const repeated = await getJson(`${base}/cityList?province=${encodeURIComponent('北京市')}&province=${encodeURIComponent('天津市')}`);
    expect(repeated).toEqual({ status: 400, body: { code: 1001, msg: 'province: given more than once in the query string', data: null } });
  });
});

describe('region endpoint placement', () => {
  it('stays at the host root when the merchant base path is changed', async () => {
    const { listener, list } = await setup({ basePath: '/custom/prefix' });
    expect((await list('cityList', { province: '上海市' })).body.data).toEqual([{ name: '上海市', code: '310100' }]);
    const moved = await getJson(`${listener.url}/custom/prefix/channel/alpha/provinceList`);
    expect(moved.status).toBe(404);
    expect(moved.body.code).toBe(3001);
  });

  it('needs no signature, cookie or body, and is GET only', async () => {
    const { base } = await setup();
    const post = await fetch(`${base}/provinceList`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(404);
    expect(((await post.json()) as { msg: string }).msg).toBe('POST /addons/paychannel/channel/alpha/provinceList: no such endpoint');
  });
});
