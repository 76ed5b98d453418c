/**
 * The OpenAPI document the listener serves: valid OpenAPI 3.1 with valid
 * JSON Schema 2020-12 inside, complete (every route of the listener but the
 * console's), derived from the routes' own schemas, and the conformance check
 * that holds every test listener's answers to it really catches a mismatch.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorCodeTable } from '../../../src-shared/errors';
import { buildHttpApp, startListener } from '../../../src-main/http/server';
import { RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import { buildOpenApiDocument, undocumentedRoutes, type JsonSchema, type OpenApiDocument } from '../../../src-main/http/openapi/openapi-document';
import { openApiDocumentOf } from '../../../src-main/http/openapi/reference-routes';
import { routesOf } from '../../../src-main/http/openapi/route-doc';
import { signingExample } from '../../../src-main/http/openapi/signing-doc';
import { checkAnswersAgainstOpenApi } from '../../support/openapi-conformance';
import { rawRequest } from '../../support/http-raw';
import { clientFor, seedMerchant, testListener, testService } from '../../support/service-harness';

async function readyApp(options: { basePath?: string } = {}): Promise<FastifyInstance> {
  const app = buildHttpApp(await testService(), { logger: false, console: { dir: '/nonexistent' }, ...options });
  await app.ready();
  return app;
}

/** Every Schema Object of the document, with where it is. */
function schemasOf(doc: OpenApiDocument): [string, JsonSchema][] {
  const out: [string, JsonSchema][] = [];
  const walk = (node: unknown, at: string) => {
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'schema' && v && typeof v === 'object') out.push([`${at}/schema`, v as JsonSchema]);
      else walk(v, `${at}/${k}`);
    }
  };
  walk(doc.paths, '#/paths');
  walk(doc.components.responses, '#/components/responses');
  for (const [name, s] of Object.entries(doc.components.schemas)) out.push([`#/components/schemas/${name}`, s]);
  return out;
}

/** The value at a `.`-separated path into the document (numbers index arrays). */
function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}
const op = (doc: OpenApiDocument, path: string, method = 'post') => doc.paths[path]![method]!;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1; every schema in it is valid JSON Schema 2020-12 and every $ref resolves', async () => {
    const app = await readyApp();
    const doc = openApiDocumentOf(app);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect([result.valid, validator.version]).toEqual([true, '3.1']);
    expect(() => validator.resolveRefs()).not.toThrow();

    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'urn:mc:doc', components: doc.components } as object);
    for (const [where, schema] of schemasOf(doc)) {
      expect(ajv.validateSchema(schema), `${where}: ${ajv.errorsText()}`).toBe(true);
      const local = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"urn:mc:doc#/components/')) as object;
      expect(() => ajv.compile(local), where).not.toThrow();
    }
    // The validator looks at the document's own shape too: a broken one is refused.
    const broken = structuredClone(doc);
    broken.paths['/pay/{token}']!.get!.responses = { 200: { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents every route of the listener except the console, and nothing else', async () => {
    const app = await readyApp();
    const routes = routesOf(app);
    expect(undocumentedRoutes(routes)).toEqual([]);
    const doc = openApiDocumentOf(app);
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        'POST /addons/paychannel/merchant/orderQueryList',
        'POST /addons/paychannel/merchant/orderQueryDetail',
        'POST /addons/paychannel/merchant/getPayChannels',
        'POST /addons/paychannel/merchant/createOrder',
        'GET /addons/paychannel/openapi.json',
        'GET /addons/paychannel/docs/',
        'GET /addons/paychannel/channel/alpha/regionData',
        'GET /addons/paychannel/channel/alpha/provinceList',
        'GET /addons/paychannel/channel/alpha/cityList',
        'GET /addons/paychannel/channel/alpha/districtList',
        'POST /channel/notify/{channelId}',
        'GET /pay/{token}',
        'POST /pay/{token}/pay',
        'POST /pay/{token}/fail',
      ].sort(),
    );
    // A route added without an entry is reported (what keeps the list above complete).
    const extra = [...routes, { method: 'GET', url: '/new-thing', doc: undefined }];
    expect(undocumentedRoutes(extra)).toEqual([{ method: 'GET', url: '/new-thing', doc: undefined }]);
    expect(buildOpenApiDocument(extra, { serverUrl: '/', basePath: '', version: '1' }).paths['/new-thing']).toBeUndefined();
  });

  it('takes requests from the routes\' schemas as input (lossless amounts, defaults) and answers as output', async () => {
    const doc = openApiDocumentOf(await readyApp());
    const create = op(doc, '/addons/paychannel/merchant/createOrder');
    const body = 'requestBody.content.application/json.schema.oneOf';
    // cny_amount: a string or a JSON number (kept losslessly), never "anything".
    expect(at(create, `${body}.0.properties.cny_amount`)).toMatchObject({ type: ['string', 'number'] });
    expect(at(create, `${body}.0.properties.order_type`)).toEqual({ type: 'integer', const: 1 });
    expect(at(create, `${body}.1.properties.alpha_card_info.properties.prov_id`)).toMatchObject({ type: 'string', pattern: '^[0-9]{6}$' });
    expect(at(create, `${body}.0.additionalProperties`)).toBe(false);
    expect(at(create, `${body}.0.required`)).toEqual(expect.arrayContaining(['api_key', 'timestamp', 'nonce', 'signature', 'cny_amount']));
    expect(create.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]);
    const ok = at(create, 'responses.200.content.application/json.schema');
    expect(ok).toMatchObject({ required: ['code', 'msg', 'data', 'time'], properties: { msg: { const: 'Order created' } } });
    // Answers are the output: the buy and the sell view, amounts in fen as integers.
    expect(ok).toMatchObject({
      properties: { data: { anyOf: [{ properties: { order_type: { const: 1 }, service_amount: { type: 'integer' } } }, { properties: { order_type: { const: 2 } } }] } },
    });

    const list = op(doc, '/addons/paychannel/merchant/orderQueryList');
    expect(at(list, 'requestBody.content.application/json.schema.properties.page')).toMatchObject({ type: 'integer', default: 1, minimum: 1 });
    expect(op(doc, '/addons/paychannel/merchant/getPayChannels').parameters).toEqual([
      { name: 'category', in: 'query', required: false, schema: { type: 'string', enum: ['alpha', 'beta', 'gamma'] } },
    ]);
    expect((op(doc, '/addons/paychannel/channel/alpha/districtList', 'get').parameters as JsonSchema[]).map((p) => [p.name, p.in, p.required])).toEqual([
      ['province', 'query', true],
      ['city', 'query', true],
    ]);
    expect(at(op(doc, '/channel/notify/{channelId}'), 'requestBody.content.application/json.schema.properties.event.enum')).toEqual([
      'paid',
      'settled',
      'payout_accepted',
      'paid_out',
      'failed',
    ]);
    expect(Object.keys(at(op(doc, '/pay/{token}/pay'), 'requestBody.content') as object)).toEqual(['application/x-www-form-urlencoded']);
  });

  it('marks the signed operations, explains the signature with the example of docs/api.md, and carries the error-code table', async () => {
    const doc = openApiDocumentOf(await readyApp());
    const signed = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((o) => o.security)
      .map((o) => o.operationId);
    expect(signed).toEqual(['orderQueryList', 'orderQueryDetail', 'getPayChannels', 'createOrder']);
    const scheme = doc.components.securitySchemes.requestSignature as Record<string, string>;
    const ex = signingExample();
    expect(ex.md5).toBe('89AB84DE3F073D1CDDD7FEA4CF27FA42');
    for (const text of [ex.body, ex.stringToSign, ex.md5, ex.hmacSha256, 'sorted in byte order', 'not in a header']) expect(scheme.description).toContain(text);

    const table = errorCodeTable();
    expect(doc['x-error-codes']).toEqual(table.map((e) => ({ code: e.code, name: e.name, http_status: e.httpStatus, meaning: e.meaning })));
    expect(doc.components.schemas.ErrorCode!.enum).toEqual(table.map((e) => e.code));
    expect(doc.info.description).toContain('| 4002 | 409 | INSUFFICIENT_BALANCE |');
    expect(at(doc.components.responses.Error404, 'content.application/json.schema.allOf.1.properties.code.enum')).toEqual([3001]);
    expect(at(op(doc, '/addons/paychannel/merchant/orderQueryDetail'), 'responses.404')).toEqual({ $ref: '#/components/responses/Error404' });
  });

  it('is served at {base_path}/openapi.json, following the base path; regions stay at the host root', async () => {
    const service = await testService();
    const listener = await testListener(service, { basePath: '/pay-api/v1' });
    const res = await fetch(`${listener.url}/pay-api/v1/openapi.json`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    const doc = (await res.json()) as OpenApiDocument;
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocumentOf(listener.app))));
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/pay-api/v1/merchant/createOrder', '/addons/paychannel/channel/alpha/regionData']));
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/addons/paychannel/merchant/'))).toBe(false);
    expect((await fetch(`${listener.url}/addons/paychannel/openapi.json`)).status).toBe(404);
  });
});

describe('answers checked against the document', () => {
  it('a deliberately broken answer is reported: wrong type in data, wrong status for a code, undocumented content type', async () => {
    const service = await testService();
    const problems: string[] = [];
    const listener = await startListener(service, {
      host: '127.0.0.1',
      port: 0,
      logger: false,
      rateLimits: RATE_LIMITS_OFF,
      setup: (app) => {
        // Runs before the check: breaks some answers the way a code change could.
        app.addHook('onSend', async (request, reply, payload) => {
          if (request.url.includes('/cityList')) return String(payload).replace('"code":"110100"', '"code":110100');
          if (request.url === '/no-such-path') return String(payload).replace('"code":3001', '"code":1001');
          if (request.url.startsWith('/pay/')) reply.header('content-type', 'application/json');
          return payload;
        });
        checkAnswersAgainstOpenApi(app, (problem) => problems.push(problem));
      },
    });
    try {
      const base = `${listener.url}/addons/paychannel/channel/alpha`;
      expect((await fetch(`${base}/provinceList`)).status).toBe(200);
      expect(problems).toEqual([]);
      expect((await fetch(`${base}/cityList?province=${encodeURIComponent('北京市')}`)).status).toBe(200);
      expect((await fetch(`${listener.url}/no-such-path`)).status).toBe(404);
      expect((await fetch(`${listener.url}/pay/${'x'.repeat(32)}`)).status).toBe(404);
      expect(problems).toEqual([
        expect.stringMatching(/^GET \/addons\/paychannel\/channel\/alpha\/cityList: HTTP 200 of GET .*: \/data\/0\/code must be string/),
        'GET /no-such-path: code 1001 answers with HTTP 400, not 404',
        expect.stringMatching(/^GET \/pay\/x+: Content-Type application\/json is not documented for HTTP 404 of GET \/pay\/\{token\} \(text\/html\)$/),
      ]);
    } finally {
      await listener.close();
    }
  });

  it('the integration suites\' listeners run the check (a signed call, a refusal and a page here)', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    const client = clientFor(listener, m);
    expect((await client.createOrder({ order_type: 1, cny_amount: 100.5, paychannel_id: m.channels.alpha, paychannel_paymethod: 'alipay' })).status).toBe(200);
    expect((await client.call('orderQueryList', { page: 0 })).status).toBe(400);
    expect((await rawRequest(listener.url, 'POST', '/addons/paychannel/merchant/getPayChannels', { body: '[]', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    // The page's check itself is in test/support/openapi-conformance.ts; a mismatch here fails this test in afterEach.
    expect(routesOf(listener.app).length).toBeGreaterThan(0);
  });
});
