/**
 * Bad input, property-tested against a real listener (docs/api.md, Errors):
 * every refused request of every endpoint gets a 4xx status and the
 * envelope {code ≠ 1, msg, data: null} (the checkout page answers HTML),
 * the server stays up, and nothing is written: the row counts of every
 * table but `nonces`, and every ledger sum and balance, are unchanged. Only a
 * request whose signature verified may consume its nonce.
 *
 * Run counts are bounded so the file takes seconds; fast-check prints the
 * seed of a failure for replay.
 */
import fc from 'fast-check';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { newNonce } from '../../../src-shared/client/merchant-client';
import { BODY_LIMIT_BYTES } from '../../../src-shared/constants';
import { ErrorCode } from '../../../src-shared/errors';
import { isSafeText } from '../../../src-shared/schemas/fields';
import { JsonDecimal, type JsonValue } from '../../../src-shared/json/lossless-json';
import { startListener, type RunningListener } from '../../../src-main/http/server';
import { RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import type { MerchantConsoleService } from '../../../src-main/service';
import { expectLedgerConsistent, newBuy } from '../../support/money';
import { rawRequest, type RawResponse } from '../../support/http-raw';
import { read, seedMerchant, write, type SeededMerchant } from '../../support/service-harness';
import { checkAnswersAgainstOpenApi } from '../../support/openapi-conformance';
import { openSharedService } from '../../support/shared-service';

const BASE = '/addons/paychannel/merchant';
const REGIONS = '/addons/paychannel/channel/alpha';
const RUNS = { numRuns: 40 };

let service: MerchantConsoleService;
let listener: RunningListener;
let merchant: SeededMerchant;
let other: SeededMerchant;
let existingOrderNo: string;
let otherOrderNo: string;
let payToken: string;

/** Everything a refused request must leave as it was. */
function footprint(): Promise<Record<string, unknown>> {
  return read(service, async (tx) => {
    const tables = (
      await tx.all<{ name: string }>(
        tx.dialect === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('nonces', 'sqlite_sequence', 'sqlite_stat1')"
          : "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'nonces'",
      )
    ).map((t) => t.name);
    expect(tables).toContain('orders');
    const out: Record<string, unknown> = {};
    for (const t of tables) out[t] = (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM "${t}"`))!.n;
    out.ledger = await tx.all('SELECT account, merchant_id, sum(amount) AS total FROM ledger_entries GROUP BY 1, 2 ORDER BY 1, 2');
    out.balances = await tx.all('SELECT merchant_id, available, frozen, deposit FROM merchant_balances ORDER BY 1');
    out.statuses = await tx.all('SELECT id, status, updatetime FROM orders ORDER BY id');
    return out;
  });
}
const nonceCount = async () => (await read(service, (tx) => tx.get<{ n: number }>('SELECT count(*) AS n FROM nonces')))!.n;

/** JSON text with some members written as raw number text (`"cny_amount":1e3`). */
function jsonWithRaw(body: Record<string, unknown>): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (value instanceof JsonDecimal) {
      raws.push(value.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return value;
  });
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]!);
}

/** Adds api_key, timestamp, nonce and a valid signature (over the values as they will be sent). */
function signed(params: Record<string, unknown>, opts: { timestamp?: number; m?: SeededMerchant } = {}): Record<string, unknown> {
  const m = opts.m ?? merchant;
  const body: Record<string, unknown> = { api_key: m.apiKey, timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000), nonce: newNonce(), ...params };
  body.signature = computeSignature(body as Record<string, JsonValue>, m.apiSecret);
  return body;
}

/** Every UTF-8 byte as %XX (encodeURIComponent throws on unpaired surrogates). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => '%' + b.toString(16).padStart(2, '0')).join('');
}

function send(method: string, path: string, body?: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<RawResponse> {
  return rawRequest(listener.url, method, path, { headers, ...(body === undefined ? {} : { body }) });
}

/** Raw bytes on a socket, for requests the HTTP parser refuses; resolves with what came back before the close. */
function sendRaw(bytes: string): Promise<RawResponse> {
  const url = new URL(listener.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: {}, body: rest.join('\r\n\r\n'), json: () => JSON.parse(rest.join('')) });
    });
    socket.end(bytes);
  });
}

function expectRefusedEnvelope(res: RawResponse, expected?: { status?: number; code?: number }): { code: number; msg: string } {
  expect(res.status, res.body).toBeGreaterThanOrEqual(400);
  expect(res.status, res.body).toBeLessThan(500);
  if (expected?.status) expect(res.status, res.body).toBe(expected.status);
  const env = JSON.parse(res.body) as { code: number; msg: string; data: unknown };
  expect(env.code).not.toBe(1);
  expect(typeof env.msg).toBe('string');
  expect(env.msg.length).toBeGreaterThan(0);
  expect(env.data).toBeNull();
  if (expected?.code) expect(env.code, env.msg).toBe(expected.code);
  return env;
}

/** Runs a property and checks that the service is up and nothing was written. */
async function refusedWithoutTrace(property: () => Promise<void>, { signedRequests = false } = {}): Promise<void> {
  const before = await footprint();
  const noncesBefore = await nonceCount();
  await property();
  expect(await footprint()).toEqual(before);
  if (!signedRequests) expect(await nonceCount()).toBe(noncesBefore);
  const alive = await send('POST', `${BASE}/getPayChannels`, JSON.stringify(signed({})));
  expect(alive.status).toBe(200);
}

beforeAll(async () => {
  service = await openSharedService({ dirPrefix: 'mc-fuzz-' });
  merchant = await seedMerchant(service, 'Fuzz', { balance: 1_000_000 });
  other = await seedMerchant(service, 'Other', { balance: 1_000_000 });
  const order = await newBuy(service, merchant);
  existingOrderNo = order.order_no;
  payToken = order.pay_token!;
  otherOrderNo = (await newBuy(service, other)).order_no;
  // Every refusal must also be an answer the OpenAPI document describes (reported by the test that got it).
  listener = await startListener(service, { host: '127.0.0.1', port: 0, logger: false, rateLimits: RATE_LIMITS_OFF, setup: checkAnswersAgainstOpenApi });
});

afterAll(async () => {
  await listener.close();
  await expectLedgerConsistent(service);
  await service.close();
});

// ------------------------------------------------------------- generators

const endpoints = ['orderQueryList', 'orderQueryDetail', 'getPayChannels', 'createOrder'] as const;

/** A body each endpoint accepts, minus authentication. */
function validParams(endpoint: (typeof endpoints)[number]): Record<string, unknown> {
  switch (endpoint) {
    case 'orderQueryList':
      return { page: 1, limit: 20 };
    case 'orderQueryDetail':
      return { order_no: existingOrderNo };
    case 'getPayChannels':
      return {};
    case 'createOrder':
      return { order_type: 1, cny_amount: '100.50', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'alipay' };
  }
}

const endpointArb = fc.constantFrom(...endpoints);
const anyJson = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;

/** Strings with controls, lone surrogates, RTL marks, NUL, emoji and CJK. */
const nastyString = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x1f }),
      fc.constantFrom(0x7f, 0x85, 0x200e, 0x202e, 0xfeff, 0xd800, 0xdfff, 0x1f4a9, 0x4e2d, 0x0301),
      fc.integer({ min: 0x20, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((codes) => codes.map((c) => (c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c))).join(''))
  .filter((s) => !isSafeText(s.trim())); // still unsafe after the trimming names get

const badAmountText = fc.constantFrom(
  '"0"', '"0.00"', '"-1"', '"-0.01"', '"NaN"', '"Infinity"', '"1e3"', '"1E2"', '"1.234"', '"0.001"', '""', '" 1"', '"1 "', '"1,000"',
  '"１００"', '"+1"', '"01"', '"1."', '".5"', '"0x10"', '"100000000000.00"', '0', '-1', '-0', '1e3', '1E+2', '1.234', '100.001', '1e400',
  '-1e-400', '0.0', 'null', 'true', '[]', '{}', '[100]', '"100.5.0"', '"１.00"', '"1\\u0000"',
);

describe('malformed bodies on every merchant endpoint', () => {
  it('malformed and truncated JSON: 400, code 1002', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.nat(), async (endpoint, cut) => {
          const text = JSON.stringify(signed(validParams(endpoint)));
          const truncated = text.slice(0, cut % (text.length - 1)); // never the whole text
          if (truncated.trim() === '') return; // an empty body is its own case below
          expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, truncated), { status: 400, code: ErrorCode.MALFORMED_JSON });
        }),
        RUNS,
      );
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.string({ maxLength: 200 }), async (endpoint, garbage) => {
          let valid = true;
          try {
            JSON.parse(garbage);
          } catch {
            valid = false;
          }
          const res = await send('POST', `${BASE}/${endpoint}`, garbage);
          if (!valid) expectRefusedEnvelope(res, { status: garbage.trim() === '' ? 400 : 400 });
          else expectRefusedEnvelope(res);
        }),
        RUNS,
      );
    });
  });

  it('non-object JSON bodies: 400, code 1003', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(endpointArb, anyJson.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)), async (endpoint, value) => {
          expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, JSON.stringify(value)), { status: 400, code: ErrorCode.BODY_NOT_OBJECT });
        }),
        RUNS,
      );
    });
  });

  it('duplicate member names and nesting deeper than 32: 400, code 1002', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.constantFrom('api_key', 'nonce', 'timestamp', 'signature', 'page', 'cny_amount', 'x'), async (endpoint, key) => {
          const text = JSON.stringify(signed(validParams(endpoint)));
          const dup = `{"${key}":1,${text.slice(1)}`.replace(`{"${key}":1,"${key}"`, `{"${key}":1,"${key}"`);
          const withDup = text.includes(`"${key}":`) ? dup : `{"${key}":1,"${key}":2,${text.slice(1)}`;
          expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, withDup), { status: 400, code: ErrorCode.MALFORMED_JSON });
        }),
        RUNS,
      );
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.integer({ min: 33, max: 5000 }), fc.constantFrom('[', '{"a":'), async (endpoint, depth, open) => {
          const close = open === '[' ? ']' : '}';
          const deep = open.repeat(depth) + '1' + close.repeat(depth);
          const text = JSON.stringify(signed(validParams(endpoint))).replace(/}$/, `,"deep":${deep}}`);
          expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, text), { status: 400, code: ErrorCode.MALFORMED_JSON });
        }),
        { numRuns: 20 },
      );
    });
  });

  it('wrong or missing Content-Type: 415, code 1005; empty body: 400', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(
          endpointArb,
          fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx', 'json', 'application/octet-stream', 'text/json', 'application/json-patch+json'),
          async (endpoint, type) => {
            const res = await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed(validParams(endpoint))), { 'content-type': type });
            expectRefusedEnvelope(res, { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE });
          },
        ),
        { numRuns: 20 },
      );
      for (const endpoint of endpoints) {
        expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed(validParams(endpoint))), {}), { status: 415 });
        expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, ''), { status: 400, code: ErrorCode.MALFORMED_JSON });
        expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, undefined, {}), { status: 415 });
      }
    });
  });

  it(`bodies over ${BODY_LIMIT_BYTES} bytes: 413, code 1006`, async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.integer({ min: 1, max: 200_000 }), async (endpoint, extra) => {
          const body = JSON.stringify(signed({ ...validParams(endpoint), pad: 'x'.repeat(BODY_LIMIT_BYTES + extra) }));
          expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, body), { status: 413, code: ErrorCode.BODY_TOO_LARGE });
        }),
        { numRuns: 10 },
      );
    });
  });
});

describe('well-formed but invalid signed requests', () => {
  it('unknown parameters: 400, code 1001, naming the parameter', async () => {
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(endpointArb, fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), anyJson, async (endpoint, key, value) => {
            const known = new Set(['api_key', 'timestamp', 'nonce', 'signature', ...Object.keys(validParams(endpoint)), 'status', 'order_type', 'start_time', 'end_time', 'customer_name', 'alpha_personal_data', 'alpha_card_info', 'cny_amount', 'paychannel_id', 'paychannel_paymethod', 'page', 'limit', 'order_no']);
            fc.pre(!known.has(key) && value !== null && value !== '');
            const env = expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed({ ...validParams(endpoint), [key]: value }))), {
              status: 400,
              code: ErrorCode.VALIDATION,
            });
            expect(env.msg).toContain(key);
          }),
          RUNS,
        );
      },
      { signedRequests: true },
    );
  });

  it('wrong types for every parameter: 400, code 1001, naming the field', async () => {
    // null and "" count as not sent (docs/api.md): fine for an optional member, "is required" for a required one.
    const notSent = (v: JsonValue) => v === null || v === '';
    const fields: Record<(typeof endpoints)[number], Record<string, (v: JsonValue) => boolean>> = {
      orderQueryList: {
        page: (v) => notSent(v) || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1_000_000),
        limit: (v) => notSent(v) || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 100),
        status: (v) => notSent(v) || (typeof v === 'string' && ['pending', 'paid', 'confirmed', 'completed', 'cancelled'].includes(v)),
        order_type: (v) => notSent(v) || v === 1 || v === 2,
        start_time: (v) => notSent(v) || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
        end_time: (v) => notSent(v) || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
      },
      orderQueryDetail: { order_no: () => false },
      getPayChannels: {},
      createOrder: {
        order_type: () => false,
        paychannel_id: () => false,
        paychannel_paymethod: (v) => v === 'wxpay' || v === 'alipay' || v === 'bank',
        customer_name: (v) => notSent(v) || (typeof v === 'string' && v.trim().length <= 64 && isSafeText(v)),
      },
    };
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(endpointArb.filter((e) => e !== 'getPayChannels'), fc.nat(), anyJson, async (endpoint, pick, value) => {
            const names = Object.keys(fields[endpoint]);
            const field = names[pick % names.length]!;
            // Skip values that are valid for the field.
            fc.pre(!fields[endpoint][field]!(value));
            if (endpoint === 'orderQueryDetail' && typeof value === 'string') return; // any string is a (missing) order number: 404 below
            const res = await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed({ ...validParams(endpoint), [field]: value })));
            const env = expectRefusedEnvelope(res, { status: 400 });
            expect([ErrorCode.VALIDATION]).toContain(env.code);
            expect(env.msg).toMatch(new RegExp(`^(${field}|body)\\b`));
          }),
          { numRuns: 80 },
        );
      },
      { signedRequests: true },
    );
  });

  it('amounts zero, negative, NaN, exponents, three decimals, huge: 400, code 1001 on cny_amount', async () => {
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(badAmountText, fc.constantFrom(1, 2), async (amountText, orderType) => {
            const params = { ...validParams('createOrder'), order_type: orderType, paychannel_paymethod: 'bank', cny_amount: new JsonDecimal(amountText) };
            // Signed over the exact text sent: a raw number's text, or the string's content.
            const body = signed(params);
            const sentAs = amountText.startsWith('"') ? (JSON.parse(amountText) as string) : new JsonDecimal(amountText);
            body.cny_amount = sentAs;
            body.signature = computeSignature({ ...body, signature: undefined } as unknown as Record<string, JsonValue>, merchant.apiSecret);
            const res = await send('POST', `${BASE}/createOrder`, jsonWithRaw(body));
            const env = expectRefusedEnvelope(res);
            if (res.status === 400 && env.code === ErrorCode.VALIDATION) expect(env.msg).toMatch(/^cny_amount/);
            else expect([ErrorCode.MALFORMED_JSON]).toContain(env.code); // 1e400 and friends are still JSON; only invalid texts land here
          }),
          { numRuns: 60 },
        );
      },
      { signedRequests: true },
    );
  });

  it('unicode and control characters where they do not belong: 4xx', async () => {
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(nastyString, fc.constantFrom('paychannel_paymethod', 'customer_name', 'status', 'order_no'), async (text, field) => {
            const endpoint = field === 'status' ? 'orderQueryList' : field === 'order_no' ? 'orderQueryDetail' : 'createOrder';
            const res = await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed({ ...validParams(endpoint), [field]: text })));
            const env = expectRefusedEnvelope(res);
            expect(env.msg).toMatch(new RegExp(`^${field}`));
          }),
          RUNS,
        );
      },
      { signedRequests: true },
    );
  });

  it('huge strings and numbers: 4xx', async () => {
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.record({ endpoint: fc.constant('createOrder' as const), field: fc.constantFrom('customer_name', 'paychannel_paymethod'), value: fc.integer({ min: 65, max: 60_000 }).map((n) => '字'.repeat(n)) }),
              fc.record({ endpoint: fc.constant('orderQueryDetail' as const), field: fc.constant('order_no'), value: fc.integer({ min: 65, max: 60_000 }).map((n) => 'B'.repeat(n)) }),
              fc.record({
                endpoint: fc.constantFrom('orderQueryList' as const),
                field: fc.constantFrom('page', 'limit', 'start_time', 'end_time', 'order_type'),
                value: fc.constantFrom('1e308', '123456789012345678901234567890', '-9007199254740993', '1.5', '9007199254740993', '1000001', '101', '0', '-1').map((t) => new JsonDecimal(t)),
              }),
              fc.record({
                endpoint: fc.constant('createOrder' as const),
                field: fc.constant('paychannel_id'),
                value: fc.constantFrom('1e308', '123456789012345678901234567890', '0', '-3', '2.0', '9007199254740993').map((t) => new JsonDecimal(t)),
              }),
            ),
            async ({ endpoint, field, value }) => {
              const body: Record<string, unknown> = { api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce(), ...validParams(endpoint), [field]: value };
              body.signature = computeSignature(body as Record<string, JsonValue>, merchant.apiSecret);
              const text = jsonWithRaw(body);
              const res = await send('POST', `${BASE}/${endpoint}`, text);
              const env = expectRefusedEnvelope(res);
              if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) expect(res.status).toBe(413);
              else expect(env.msg).toMatch(new RegExp(`^${field}`));
            },
          ),
          RUNS,
        );
      },
      { signedRequests: true },
    );
  });
});

describe('headers and query strings', () => {
  it('bad Idempotency-Key headers and bad getPayChannels queries: 400, nothing created', async () => {
    await refusedWithoutTrace(
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.integer({ min: 256, max: 2000 }).map((n) => 'k'.repeat(n)),
              // (Surrounding spaces are stripped by HTTP itself, so they cannot be sent.)
              fc.constantFrom('é-not-ascii', '中文'),
            ),
            async (key) => {
              const res = await send('POST', `${BASE}/createOrder`, JSON.stringify(signed(validParams('createOrder'))), {
                'content-type': 'application/json',
                'idempotency-key': Buffer.from(key, 'utf8').toString('latin1'),
              });
              const env = expectRefusedEnvelope(res, { status: 400, code: ErrorCode.VALIDATION });
              expect(env.msg).toMatch(/^Idempotency-Key/);
            },
          ),
          { numRuns: 15 },
        );
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.string({ minLength: 1, maxLength: 20 }).filter((c) => !['alpha', 'beta', 'gamma'].includes(c)).map((c) => `category=${percentEncode(c)}`),
              fc.constantFrom('category=alpha&category=beta', 'other=1', 'api_key=x', 'category=ALPHA'),
            ),
            async (query) => {
              const body = signed(validParams('getPayChannels'));
              // Query parameters are signed too (docs/api.md): sign over them, so the refusal is about the value.
              const params = Object.fromEntries(new URLSearchParams(query));
              const res = await send('POST', `${BASE}/getPayChannels?${query}`, JSON.stringify({ ...body, signature: computeSignature({ ...body, signature: undefined, ...params } as unknown as Record<string, JsonValue>, merchant.apiSecret) }));
              expectRefusedEnvelope(res, { status: res.status === 401 ? 401 : 400 });
            },
          ),
          { numRuns: 20 },
        );
      },
      { signedRequests: true },
    );
  });
});

describe('authentication', () => {
  it('bad signatures, unknown keys, missing or malformed auth members: 401, nonce not consumed', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(
          endpointArb,
          fc.oneof(
            fc.record({ kind: fc.constant('signature' as const), value: fc.oneof(fc.stringMatching(/^[0-9A-F]{64}$/), fc.string({ minLength: 1, maxLength: 80 })) }),
            fc.record({ kind: fc.constant('api_key' as const), value: fc.string({ minLength: 1, maxLength: 40 }) }),
            fc.record({ kind: fc.constant('drop' as const), value: fc.constantFrom('api_key', 'timestamp', 'nonce', 'signature') }),
            fc.record({ kind: fc.constant('nonce' as const), value: fc.oneof(fc.string({ maxLength: 7 }), fc.string({ minLength: 65, maxLength: 90 }), nastyString) }),
            fc.record({ kind: fc.constant('type' as const), value: fc.constantFrom('api_key', 'timestamp', 'nonce', 'signature') }),
            fc.record({ kind: fc.constant('tamper' as const), value: fc.constant('') }),
          ),
          async (endpoint, mutation) => {
            const body = signed(validParams(endpoint));
            if (mutation.kind === 'signature') fc.pre(mutation.value.toUpperCase() !== body.signature);
            if (mutation.kind === 'api_key') fc.pre(mutation.value !== merchant.apiKey && mutation.value !== other.apiKey);
            switch (mutation.kind) {
              case 'signature':
              case 'api_key':
              case 'nonce':
                body[mutation.kind] = mutation.value;
                break;
              case 'drop':
                delete body[mutation.value];
                break;
              case 'type':
                body[mutation.value] = mutation.value === 'timestamp' ? String(body.timestamp) : 12345678;
                break;
              case 'tamper':
                // Signed, then a parameter changed in transit.
                body.zz_extra = 'added after signing';
                break;
            }
            expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, JSON.stringify(body)), { status: 401 });
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  it('stale and future timestamps: 401, code 2004', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(endpointArb, fc.integer({ min: 301, max: 2_000_000_000 }), fc.boolean(), async (endpoint, skew, future) => {
          const now = Math.floor(Date.now() / 1000);
          const timestamp = future ? now + skew + 2 : Math.max(0, now - skew - 2);
          fc.pre(Math.abs(timestamp - now) > 302);
          const res = await send('POST', `${BASE}/${endpoint}`, JSON.stringify(signed(validParams(endpoint), { timestamp })));
          expectRefusedEnvelope(res, { status: 401, code: ErrorCode.AUTH_STALE_TIMESTAMP });
        }),
        RUNS,
      );
    });
  });

  it('a replayed nonce: 401, code 2005, for the same or another body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('orderQueryList', 'orderQueryDetail', 'getPayChannels') as fc.Arbitrary<'orderQueryList' | 'orderQueryDetail' | 'getPayChannels'>, fc.boolean(), async (endpoint, sameBody) => {
        const first = signed(validParams(endpoint));
        expect((await send('POST', `${BASE}/${endpoint}`, JSON.stringify(first))).status).toBe(200);
        const before = await footprint();
        const replay = sameBody ? first : signed({ ...validParams(endpoint), limit: endpoint === 'orderQueryList' ? 5 : undefined });
        if (!sameBody) {
          replay.nonce = first.nonce;
          replay.signature = computeSignature({ ...replay, signature: undefined } as unknown as Record<string, JsonValue>, merchant.apiSecret);
        }
        expectRefusedEnvelope(await send('POST', `${BASE}/${endpoint}`, JSON.stringify(replay)), { status: 401, code: ErrorCode.AUTH_NONCE_REUSED });
        expect(await footprint()).toEqual(before);
      }),
      { numRuns: 15 },
    );
    // A replayed createOrder creates nothing the second time.
    const order = signed(validParams('createOrder'));
    expect((await send('POST', `${BASE}/createOrder`, JSON.stringify(order))).status).toBe(200);
    await refusedWithoutTrace(async () => {
      expectRefusedEnvelope(await send('POST', `${BASE}/createOrder`, JSON.stringify(order)), { status: 401, code: ErrorCode.AUTH_NONCE_REUSED });
    });
  });

  it("another merchant's order number answers exactly like a missing one", async () => {
    await refusedWithoutTrace(
      async () => {
        const foreign = await send('POST', `${BASE}/orderQueryDetail`, JSON.stringify(signed({ order_no: otherOrderNo })));
        const missing = await send('POST', `${BASE}/orderQueryDetail`, JSON.stringify(signed({ order_no: 'B20990101000000' + '0'.repeat(10) })));
        expectRefusedEnvelope(foreign, { status: 404, code: ErrorCode.NOT_FOUND });
        expectRefusedEnvelope(missing, { status: 404, code: ErrorCode.NOT_FOUND });
        expect(JSON.parse(foreign.body).msg.replace(otherOrderNo, 'X')).toBe(JSON.parse(missing.body).msg.replace('B20990101000000' + '0'.repeat(10), 'X'));
      },
      { signedRequests: true },
    );
  });
});

describe('region endpoints', () => {
  const regionPaths = ['regionData', 'provinceList', 'cityList', 'districtList'] as const;
  it('unknown, repeated, huge or unicode query parameters and unknown names: 4xx envelope', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...regionPaths),
          fc.oneof(
            fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.string({ maxLength: 30 }), { minKeys: 1, maxKeys: 3 }).map((d) => new URLSearchParams(d).toString()),
            fc.constantFrom('province=a&province=b', 'city=x&city=y&province=p', 'province=', 'province=%00', 'province=%E4%B8', '%ZZ=1'),
            nastyString.map((s) => `province=${percentEncode(s)}&city=${percentEncode(s)}`),
            fc.integer({ min: 100, max: 1500 }).map((n) => `province=${encodeURIComponent('北'.repeat(n))}`),
          ),
          async (path, query) => {
            const valid =
              (path === 'cityList' && /^province=[^&]+$/.test(query)) ||
              (path === 'districtList' && /^(province=[^&]+&city=[^&]+|city=[^&]+&province=[^&]+)$/.test(query));
            const res = await send('GET', `${REGIONS}/${path}?${query}`, undefined, {});
            if (res.status === 200) {
              expect(valid).toBe(true); // only a real name pair could be found, and random ones are not
              return;
            }
            expectRefusedEnvelope(res);
          },
        ),
        RUNS,
      );
      for (const path of regionPaths) expectRefusedEnvelope(await send('POST', `${REGIONS}/${path}`, '{}'), { status: 404 });
    });
  });

  it('a request line over 16 KiB or a broken request: 431 or 400 envelope, then the connection closes', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...regionPaths, 'x'), fc.integer({ min: 17_000, max: 200_000 }), async (path, size) => {
          const res = await sendRaw(`GET ${REGIONS}/${path}?province=${'a'.repeat(size)} HTTP/1.1\r\nHost: x\r\n\r\n`);
          expectRefusedEnvelope(res, { status: 431, code: ErrorCode.HEADERS_TOO_LARGE });
        }),
        { numRuns: 8 },
      );
      for (const garbage of ['GARBAGE\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n', 'POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n']) {
        expectRefusedEnvelope(await sendRaw(garbage), { status: 400, code: ErrorCode.MALFORMED_REQUEST });
      }
    });
  });
});

describe('channel notifications', () => {
  it('malformed, unsigned, mis-signed, stale or foreign notifications: 4xx envelope, nothing moves', async () => {
    const order = await read(service, (tx) => service.services.orders.requireByNo(tx, existingOrderNo));
    const channelId = order.channel_id;
    const { sandbox } = service.services;
    // A signed notification of the order; the first call gives the channel its notify secret, so the ones below write nothing.
    const notification = () => write(service, async (tx) => (await sandbox.notificationFor(tx, order, 'pay', 'fuzz')).body);
    await notification();
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.record({ kind: fc.constant('path' as const), id: fc.oneof(fc.stringMatching(/^[a-z%._-]{1,12}$/), fc.constantFrom('0', '-1', '99999999999', '1e3', '007')) }),
            fc.record({ kind: fc.constant('garbage' as const), text: fc.string({ maxLength: 120 }) }),
            fc.record({ kind: fc.constant('json' as const), value: anyJson }),
            fc.record({ kind: fc.constant('tamper' as const), field: fc.constantFrom('amount', 'order_no', 'event', 'signature', 'timestamp', 'nonce', 'reason'), value: anyJson }),
            fc.record({ kind: fc.constant('stale' as const), skew: fc.integer({ min: 301, max: 100_000_000 }) }),
          ),
          async (c) => {
            let path = `/channel/notify/${channelId}`;
            let text: string;
            const fresh = await notification();
            switch (c.kind) {
              case 'path':
                path = `/channel/notify/${c.id}`;
                text = JSON.stringify(fresh);
                break;
              case 'garbage':
                text = c.text;
                break;
              case 'json':
                text = JSON.stringify(c.value);
                break;
              case 'tamper':
                fc.pre(JSON.stringify(fresh[c.field]) !== JSON.stringify(c.value));
                text = JSON.stringify({ ...fresh, [c.field]: c.value });
                break;
              case 'stale':
                text = JSON.stringify({ ...fresh, timestamp: fresh.timestamp - c.skew });
                break;
            }
            const res = await send('POST', path, text);
            expectRefusedEnvelope(res);
          },
        ),
        RUNS,
      );
      // The right signature on another channel's path.
      const fresh = await notification();
      expectRefusedEnvelope(await send('POST', `/channel/notify/${other.channels.beta}`, JSON.stringify(fresh)));
    });
  });
});

describe('checkout page', () => {
  it('unknown or malformed tokens: 404 page; nothing is paid', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{32}$/), fc.string({ minLength: 1, maxLength: 60 }).map(encodeURIComponent)), fc.constantFrom('', '/pay', '/fail'), async (token, action) => {
          fc.pre(token !== payToken);
          const res = await send(action ? 'POST' : 'GET', `/pay/${token}${action}`, action ? '' : undefined, action ? { 'content-type': 'application/x-www-form-urlencoded' } : {});
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
        }),
        RUNS,
      );
    });
  });
});

describe('console API without a session', () => {
  it('any method, any body: 4xx envelope', async () => {
    await refusedWithoutTrace(async () => {
      await fc.assert(
        fc.asyncProperty(fc.stringMatching(/^[A-Za-z]{1,20}$/), anyJson, async (method, value) => {
          expectRefusedEnvelope(await send('POST', `/console-api/${method}`, JSON.stringify(value), { 'content-type': 'application/json', origin: listener.url }));
        }),
        { numRuns: 20 },
      );
    });
  });
});
