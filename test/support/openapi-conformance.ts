/**
 * Every answer a test listener sends must match the OpenAPI document that
 * listener serves: a documented status for the operation, its content type,
 * and a body valid against its schema (ajv, JSON Schema 2020-12 as OpenAPI
 * 3.1 uses); an answer on no route (404, a refusal before routing) is the
 * error envelope, its status the one its code maps to. A mismatch fails the
 * test that got the answer (afterEach), so the document and the code cannot
 * drift apart unnoticed.
 */
import zlib from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import type { FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';
import { isConsoleRoute, type JsonSchema, type OpenApiDocument } from '../../src-main/http/openapi/openapi-document';
import { openApiDocumentOf } from '../../src-main/http/openapi/reference-routes';
import { openApiPath } from '../../src-main/http/openapi/route-doc';

export interface SentResponse {
  method: string;
  /** The route's Fastify URL (`/pay/:token`); undefined when no route matched. */
  routeUrl: string | undefined;
  status: number;
  headers: Record<string, unknown>;
  body: string | Buffer | null | undefined;
}

const DOC_ID = 'urn:merchant-console:openapi';

/** Returns a function that says what is wrong with a response, or undefined when it matches the document. */
export function responseChecker(doc: OpenApiDocument): (r: SentResponse) => string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc as object, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string) => {
    let v = compiled.get(pointer);
    if (!v) compiled.set(pointer, (v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` })));
    return v;
  };
  const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const codeStatus = new Map((doc['x-error-codes'] as { code: number; http_status: number }[]).map((e) => [e.code, e.http_status]));

  return (r) => {
    const mediaType = String(r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const text = bodyText(r);
    if (r.routeUrl !== undefined && isConsoleRoute(r.routeUrl)) return undefined;

    const path = r.routeUrl === undefined ? undefined : openApiPath(r.routeUrl);
    const method = r.method === 'HEAD' ? 'get' : r.method.toLowerCase();
    const operation = path === undefined ? undefined : (doc.paths[path]?.[method] as JsonSchema | undefined);
    if (!operation) {
      // No documented route: a 404, or a refusal before routing, or a route left out on purpose (static files).
      if (r.routeUrl !== undefined && r.status < 400) return undefined;
      if (mediaType !== 'application/json') return `${r.status} with Content-Type ${mediaType || 'none'}, not the JSON error envelope`;
      const problem = validate(validatorAt('/components/schemas/ErrorEnvelope'), text);
      if (problem) return `not the error envelope: ${problem}`;
      const code = (JSON.parse(text) as { code: number }).code;
      return codeStatus.get(code) === r.status ? undefined : `code ${code} answers with HTTP ${codeStatus.get(code)}, not ${r.status}`;
    }

    const responses = operation.responses as Record<string, JsonSchema>;
    let pointer = `/paths/${escape(path!)}/${method}/responses/${r.status}`;
    let response = responses[String(r.status)];
    if (!response) return `HTTP ${r.status} is not a documented answer of ${method.toUpperCase()} ${path}`;
    if (typeof response.$ref === 'string') {
      pointer = response.$ref.slice(1);
      response = doc.components.responses[response.$ref.split('/').pop()!]!;
    }
    const content = response.content as Record<string, unknown> | undefined;
    if (!content) return text === '' ? undefined : `HTTP ${r.status} of ${method.toUpperCase()} ${path} has no body in the document, but one was sent`;
    if (!(mediaType in content)) return `Content-Type ${mediaType || 'none'} is not documented for HTTP ${r.status} of ${method.toUpperCase()} ${path} (${Object.keys(content).join(', ')})`;
    if (r.method === 'HEAD') return undefined;
    if (mediaType !== 'application/json') return text === '' ? `HTTP ${r.status} of ${method.toUpperCase()} ${path}: empty ${mediaType} body` : undefined;
    const problem = validate(validatorAt(`${pointer}/content/${escape(mediaType)}/schema`), text);
    return problem ? `HTTP ${r.status} of ${method.toUpperCase()} ${path}: ${problem}` : undefined;
  };
}

function bodyText(r: SentResponse): string {
  if (r.body === null || r.body === undefined) return '';
  if (typeof r.body === 'string') return r.body;
  const encoding = r.headers['content-encoding'];
  const raw = encoding === 'br' ? zlib.brotliDecompressSync(r.body) : encoding === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
  return raw.toString('utf8');
}

function validate(check: ValidateFunction, text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${text.slice(0, 80)}`;
  }
  if (check(value)) return undefined;
  return (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

const mismatches: string[] = [];
afterEach(() => {
  const found = mismatches.splice(0);
  if (found.length > 0) throw new Error(`answers that do not match the OpenAPI document:\n${found.join('\n')}`);
});

/**
 * For ListenerOptions.setup: checks every answer of the app against the
 * document it serves. `report` defaults to failing the current test.
 */
export function checkAnswersAgainstOpenApi(app: FastifyInstance, report: (problem: string) => void = (p) => mismatches.push(p)): void {
  let check: ((r: SentResponse) => string | undefined) | undefined;
  app.addHook('onReady', async () => {
    check = responseChecker(openApiDocumentOf(app));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    // A stream (none of the documented routes sends one) is not read here.
    if (check && (payload === null || payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const problem = check({
        method: request.method,
        routeUrl: request.is404 ? undefined : request.routeOptions.url,
        status: reply.statusCode,
        headers: reply.getHeaders(),
        body: payload,
      });
      if (problem) report(`${request.method} ${request.url.split('?')[0]}: ${problem}`);
    }
    return payload;
  });
}
