/**
 * The OpenAPI 3.1 document of the listener, built from the routes it
 * registered (route-doc.ts) and the zod schemas they validate with: request
 * bodies, query strings and headers as the input the schema accepts, answers
 * as the output it produces. Nothing here restates a field: a route that
 * changes its schema changes the document.
 */
import { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../../../src-shared/constants';
import { CONSOLE_HTTP_PREFIX } from '../../../src-shared/console-api/methods';
import { errorCodeTable, SUCCESS_CODE } from '../../../src-shared/errors';
import { JsonDecimal } from '../../../src-shared/json/lossless-json';
import { openApiPath, type CollectedRoute, type DocTag, type HeaderDoc, type ResponseDoc, type RouteDoc } from './route-doc';
import { signingSchemeDescription } from './signing-doc';

export type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; description?: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
  [extension: `x-${string}`]: unknown;
  [key: string]: unknown;
}

export interface DocumentOptions {
  /** servers[0].url: absolute, or `/` (the host the document was fetched from). */
  serverUrl: string;
  /** The merchant base path in force (`''` for the root). */
  basePath: string;
  version: string;
}

export const SIGNATURE_SCHEME = 'requestSignature';

const TAGS: { name: DocTag; description: string }[] = [
  { name: 'merchant', description: 'Merchant endpoints: signed POSTs below `{base_path}/merchant/`.' },
  { name: 'regions', description: 'Mainland-China region reference data: public, at the host root whatever the base path.' },
  { name: 'channels', description: 'Notifications from payment channels, verified by the channel\'s driver.' },
  { name: 'checkout', description: 'The sandbox channel\'s hosted checkout (HTML pages, where `pay_url` points).' },
  { name: 'reference', description: 'This document and its readable page.' },
];

/** The console's own transport (docs/console.md) is not part of this API. */
export function isConsoleRoute(url: string): boolean {
  return url === '/console' || url.startsWith('/console/') || url.startsWith(CONSOLE_HTTP_PREFIX);
}

/** Routes that should be in the document and are not: a route registered without `config.openapi`. */
export function undocumentedRoutes(routes: readonly CollectedRoute[]): CollectedRoute[] {
  return routes.filter((r) => r.doc === undefined && r.method !== 'HEAD' && !isConsoleRoute(r.url));
}

// ---------------------------------------------------------------- zod → JSON Schema

/**
 * JSON Schema (2020-12, OpenAPI 3.1's dialect) of a zod schema. A lossless
 * JSON number (JsonDecimal) is a plain JSON number on the wire; anything
 * else zod cannot represent is a bug here, not an `{}` that allows anything.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    reused: 'inline',
    unrepresentable: ({ zodSchema }) => (zodSchema._zod.bag.Class === JsonDecimal ? { type: 'number' } : 'throw'),
    override: ({ jsonSchema }) => tidy(jsonSchema as JsonSchema),
  }) as JsonSchema;
  delete json.$schema;
  return collapseAnyOf(json) as JsonSchema;
}

/** z.int()'s implied ±(2^53 − 1) bounds are noise to a reader; an integer literal is an integer. */
function tidy(s: JsonSchema): void {
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  if (s.type === 'number' && Number.isInteger(s.const)) s.type = 'integer';
}

/** `anyOf: [string, number, number]` (a string, a number or a lossless number) → `anyOf: [string, number]`. */
function collapseAnyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(collapseAnyOf);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) out[k] = collapseAnyOf(v);
  if (Array.isArray(out.anyOf)) {
    const seen = new Set<string>();
    const members = (out.anyOf as unknown[]).filter((m) => {
      const key = JSON.stringify(m);
      return seen.has(key) ? false : (seen.add(key), true);
    });
    if (members.length === 1) {
      delete out.anyOf;
      return { ...(members[0] as JsonSchema), ...out };
    }
    out.anyOf = members;
  }
  return out;
}

// ---------------------------------------------------------------- envelopes and errors

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Every route can be refused by the rate limit, fail unexpectedly or meet a shutting-down or full store. */
const ANY_ROUTE_ERRORS = [429, 500, 503];
/** A route that reads a body: malformed or non-object JSON, too large, wrong Content-Type. */
const BODY_ERRORS = [400, 413, 415];

const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

function successEnvelope(data: JsonSchema, r: { withTime?: boolean; message?: string }): JsonSchema {
  return {
    type: 'object',
    required: ['code', 'msg', 'data', ...(r.withTime ? ['time'] : [])],
    additionalProperties: false,
    properties: {
      code: { const: SUCCESS_CODE, description: 'Success.' },
      msg: { const: r.message ?? 'success' },
      data,
      ...(r.withTime ? { time: { type: 'string', pattern: '^[0-9]+$', description: 'Unix seconds of the answer, as a string.' } } : {}),
    },
  };
}

function errorTableMarkdown(): string {
  const rows = errorCodeTable().map((e) => `| ${e.code} | ${e.httpStatus} | ${e.name} | ${e.meaning} |`);
  return ['| code | HTTP | name | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function errorComponents(): { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> } {
  const table = errorCodeTable();
  const schemas: Record<string, JsonSchema> = {
    ErrorCode: {
      type: 'integer',
      description: `Why the request failed; the HTTP status follows from the code.\n\n${errorTableMarkdown()}`,
      enum: table.map((e) => e.code),
      'x-enum-varnames': table.map((e) => e.name),
      'x-enum-descriptions': table.map((e) => `HTTP ${e.httpStatus}. ${e.meaning}`),
    },
    ErrorEnvelope: {
      type: 'object',
      description: 'Every failure: `msg` starts with the field or header it is about (`cny_amount: must have at most 2 decimal places`); 5xx never carry internal details.',
      required: ['code', 'msg', 'data'],
      additionalProperties: false,
      properties: { code: ref('schemas', 'ErrorCode'), msg: { type: 'string' }, data: { type: 'null' } },
    },
  };
  const responses: Record<string, JsonSchema> = {};
  for (const status of [...new Set(table.map((e) => e.httpStatus))].sort((a, b) => a - b)) {
    const codes = table.filter((e) => e.httpStatus === status);
    responses[`Error${status}`] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: code ${codes.map((e) => `${e.code} (${e.name})`).join(', ')}.`,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Whole seconds until the next request fits.', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: {
        'application/json': {
          schema: { allOf: [ref('schemas', 'ErrorEnvelope'), { properties: { code: { enum: codes.map((e) => e.code) } } }] },
        },
      },
    };
  }
  return { schemas, responses };
}

// ---------------------------------------------------------------- operations

function headerSchema(h: HeaderDoc, io: 'input' | 'output'): JsonSchema {
  return h.schema ? jsonSchemaOf(h.schema, io) : { type: 'string' };
}

function parametersOf(doc: RouteDoc): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [name, p] of Object.entries(doc.params ?? {})) {
    out.push({ name, in: 'path', required: true, description: p.description, schema: jsonSchemaOf(p.schema, 'input') });
  }
  if (doc.query) {
    const query = jsonSchemaOf(doc.query, 'input');
    if (query.type !== 'object') throw new Error(`${doc.operationId}: the query schema must be an object`);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      out.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  for (const [name, h] of Object.entries(doc.headers ?? {})) {
    out.push({ name, in: 'header', required: h.required === true, description: h.description, schema: headerSchema(h, 'input') });
  }
  return out;
}

function responseOf(r: ResponseDoc): JsonSchema {
  const headers = r.headers
    ? { headers: Object.fromEntries(Object.entries(r.headers).map(([name, h]) => [name, { description: h.description, schema: headerSchema(h, 'output') }])) }
    : {};
  const base = { description: r.description, ...headers };
  if ('envelope' in r) return { ...base, content: { 'application/json': { schema: successEnvelope(jsonSchemaOf(r.envelope, 'output'), r) } } };
  if ('html' in r) return { ...base, content: { 'text/html': { schema: { type: 'string' } } } };
  if ('jsonSchema' in r) return { ...base, content: { 'application/json': { schema: r.jsonSchema } } };
  return base;
}

function operationOf(doc: RouteDoc): JsonSchema {
  const parameters = parametersOf(doc);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, r] of Object.entries(doc.responses)) responses[status] = responseOf(r);
  const errors = new Set([...(doc.errors ?? []), ...(doc.body ? BODY_ERRORS : []), ...ANY_ROUTE_ERRORS, ...(doc.signed ? [401] : [])]);
  for (const status of [...errors].sort((a, b) => a - b)) responses[String(status)] ??= ref('responses', `Error${status}`);
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    operationId: doc.operationId,
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: doc.body.required ?? true,
            ...(doc.body.description ? { description: doc.body.description } : {}),
            content: { [doc.body.mediaType ?? 'application/json']: { schema: jsonSchemaOf(doc.body.schema, 'input') } },
          },
        }
      : {}),
    responses,
    ...(doc.signed ? { security: [{ [SIGNATURE_SCHEME]: [] }] } : {}),
  };
}

// ---------------------------------------------------------------- the document

function infoDescription(basePath: string): string {
  return `The embedded HTTP listener of merchant-console (docs/api.md describes every rule in prose).

- **Merchant endpoints**: \`POST ${basePath || ''}/merchant/<name>\` (base path \`${basePath || '/'}\`), signed: see the
  \`${SIGNATURE_SCHEME}\` security scheme for the canonical string and a worked example.
- **Region endpoints**: public \`GET\` at the host root, whatever the base path.
- **Channel notifications**: \`POST /channel/notify/{channelId}\`, verified by the channel's driver.
- **Checkout**: \`/pay/{token}\`, the sandbox channel's hosted page (HTML), where \`pay_url\` points.

Bodies are JSON (\`Content-Type: application/json\`, UTF-8), at most ${BODY_LIMIT_BYTES / 1024} KiB; unknown parameters are refused.
A top-level member whose value is \`null\` or \`""\` counts as **not sent**, in validation as in the signature.
Integer parameters are JSON integers written as such; amounts are integer **fen** unless named yuan (\`cny_amount\`, \`merchant_amount\`: yuan strings).

Every JSON answer is an envelope: \`{code: 1, msg, data[, time]}\` on success, \`{code, msg, data: null}\` on failure,
with the HTTP status given by the code:

${errorTableMarkdown()}`;
}

export function buildOpenApiDocument(routes: readonly CollectedRoute[], options: DocumentOptions): OpenApiDocument {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    // HEAD is answered wherever GET is (same headers, no body).
    if (route.method === 'HEAD' || !route.doc) continue;
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route.doc);
  }
  const errors = errorComponents();
  return {
    openapi: '3.1.0',
    info: { title: 'merchant-console HTTP API', version: options.version, description: infoDescription(options.basePath) },
    servers: [{ url: options.serverUrl }],
    tags: TAGS,
    paths,
    components: {
      schemas: errors.schemas,
      responses: errors.responses,
      securitySchemes: {
        [SIGNATURE_SCHEME]: { type: 'apiKey', in: 'header', name: 'api_key', description: signingSchemeDescription() },
      },
    },
    'x-error-codes': errorCodeTable().map((e) => ({ code: e.code, name: e.name, http_status: e.httpStatus, meaning: e.meaning })),
  };
}
