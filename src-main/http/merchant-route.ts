/**
 * Schema-first merchant routes. Each route declares its body schema, an
 * optional query schema, its response (data) schema and whether it writes.
 * The wrapper runs the same steps for all of them:
 *   body is a JSON object → body/query parsed (the verdict kept for later)
 *   → inside one write unit of work (SQLite: one group-commit batch):
 *   signature verified, per-api_key rate limit, nonce consumed, service
 *   called → after the commit (a read's nonce is not flushed on its own):
 *   the validation error if any, else the envelope serialised through the
 *   response schema.
 * A route with `alone` may instead answer with a unit of its own (one
 * statement on PostgreSQL), for a request verified against the merchant as
 * an earlier request read it: the unit checks the rows' generation is unchanged,
 * else the unit of work runs (docs/decisions.md, "Hot path").
 * A write route marked `idempotent` also honours an Idempotency-Key header
 * through the idempotency service: a stored first answer is replayed (or a
 * mismatch refused) instead of writing, and a new answer is stored with the
 * write.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, ErrorCode, httpStatusOf, SUCCESS_CODE, type Envelope } from '../../src-shared/errors';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src-shared/json/lossless-json';
import { parseOrThrow } from '../../src-shared/validation/parse';
import type { MerchantRow } from '../repositories/merchant-repository';
import type { AloneInsertRefusal, AloneReadRefusal, MerchantClaim } from '../repositories/order-repository';
import type { MerchantConsoleService } from '../service';
import type { ReadTx, WriteTx } from '../store/store';
import { envelopeJsonSchema, successEnvelope } from './envelope';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, idempotencyKeySchema, requestFingerprint } from '../services/idempotency-service';
import type { ResponseDoc, RouteDoc } from './openapi/route-doc';

export interface MerchantRouteContext<B, Q> {
  merchant: MerchantRow;
  body: B;
  query: Q;
  request: FastifyRequest;
}

interface MerchantRouteBase<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType> {
  /** Path below `{base_path}/merchant/`. */
  name: string;
  /** For the API reference (OpenAPI document): one line, and optionally more. */
  summary: string;
  description?: string;
  /** HTTP statuses of refusals particular to this route (every signed route can answer 400 and 401). */
  errors?: number[];
  body: B;
  query?: Q;
  response: R;
  /** Success message of the envelope. */
  message?: string;
  /** Adds the envelope's `time` member (createOrder). */
  withTime?: boolean;
}

export interface ReadRoute<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType> extends MerchantRouteBase<B, Q, R> {
  kind: 'read';
  handle(tx: ReadTx, ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): Promise<z.output<R>>;
  /**
   * handle and the nonce as a unit of its own (Store.writeAlone), for
   * a request verified against the cached merchant, or undefined when it
   * cannot be done so (the unit of work then runs). It writes last
   * (WriteOptions.writesLast): its reads, its answer made, then the nonce,
   * and nothing after. Its reads may be given a durable snapshot instead
   * of the writer's rows (WriteOptions.fromDurableSnapshot): they see one
   * state, and the nonce is checked against the latest rows.
   * docs/decisions.md, "Hot path".
   */
  alone?(ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): ((tx: WriteTx, claim: MerchantClaim) => Promise<z.output<R> | AloneReadRefusal>) | undefined;
}

export interface WriteRoute<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType, T> extends MerchantRouteBase<B, Q, R> {
  kind: 'write';
  /** Runs inside the request's unit of work, atomically (a refusal undoes it and keeps only the nonce). */
  write(tx: WriteTx, ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): Promise<T>;
  /** Turns the committed result into the response data (after the commit). */
  present(result: T, ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): z.output<R>;
  /**
   * Honours an `Idempotency-Key` header (docs/api.md): the first answer is
   * stored with the write and replayed for the same key and parameters.
   */
  idempotent?: boolean;
  /** The id of the order a result created, kept with its idempotency key. */
  orderIdOf?(result: T): number;
  /**
   * A result that was accepted but not done (a withdrawal held for approval):
   * the envelope to answer instead (its code ≠ 1 gives the HTTP status), or
   * null for a done result. Stored for an Idempotency-Key like any answer.
   */
  notDone?(result: T): Envelope<unknown> | null;
  /**
   * Idempotent routes: a stored answer that may have moved on since (a held
   * withdrawal decided) — the answer to replay now (it replaces the stored
   * one), or null to replay it as stored.
   */
  refreshReplay?(tx: WriteTx, stored: Envelope<unknown>, ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): Promise<Envelope<unknown> | null>;
  /** Documented answers besides 200 (e.g. 202 for a held withdrawal). */
  otherAnswers?: Record<number, ResponseDoc>;
  /**
   * The write as a unit of its own (Store.writeAlone), for a request
   * verified against the cached merchant: an attempt (run again, up to five
   * times, while it answers 'taken'), or undefined when it cannot be done so
   * (the unit of work then runs). Never for a request with an
   * Idempotency-Key. docs/decisions.md, "Hot path".
   */
  alone?(ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): ((tx: WriteTx, claim: MerchantClaim) => Promise<T | AloneInsertRefusal>) | undefined;
}

export type MerchantRoute = ReadRoute<z.ZodType, z.ZodType, z.ZodType> | WriteRoute<z.ZodType, z.ZodType, z.ZodType, unknown>;

export function defineReadRoute<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(route: Omit<ReadRoute<B, Q, R>, 'kind'>): MerchantRoute {
  return { ...route, kind: 'read' } as unknown as MerchantRoute;
}

export function defineWriteRoute<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType, T>(
  route: Omit<WriteRoute<B, Q, R, T>, 'kind'>,
): MerchantRoute {
  return { ...route, kind: 'write' } as unknown as MerchantRoute;
}

/** Query-string values as single strings; a repeated name is an error. */
export function singleValuedQuery(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new AppError(ErrorCode.VALIDATION, `${name}: given more than once in the query string`);
    out[name] = value;
  }
  return out;
}

/**
 * The members the request really gives: a top-level `null` or `""` counts as
 * not sent, as it does in the signature (docs/api.md, "Signing", rule 3), so
 * an empty filter is off and an empty required member is reported missing.
 */
export function givenMembers<T extends JsonValue>(params: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  // Usually nothing to drop: the same object, read only (a copy member by member cost 0.3 µs per signed request).
  if (!hasUnsentMember(params)) return params;
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== '') out[name] = value;
  return out;
}

function hasUnsentMember(params: Readonly<Record<string, JsonValue>>): boolean {
  // for…in, not Object.values: no array per request (the check runs on every signed request).
  for (const name in params) {
    const value = params[name];
    if (value === null || value === '') return true;
  }
  return false;
}

const emptyQuery = z.strictObject({});

/** A write's result, or (idempotent routes) the envelope JSON to answer with. */
type WriteResult = { result: unknown } | { envelope: string; replayed: boolean };
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface MerchantRouteOptions {
  /** Per-api_key rate limit, applied once the signature has verified; throws the 429 AppError. */
  checkApiKey?: ((apiKey: string) => void) | undefined;
  /** Gives back what checkApiKey counted, for a request it counted too early (one whose statement found the cache stale). */
  uncountApiKey?: ((apiKey: string) => void) | undefined;
}

export function registerMerchantRoute(
  app: FastifyInstance,
  service: MerchantConsoleService,
  prefix: string,
  route: MerchantRoute,
  options: MerchantRouteOptions = {},
): void {
  const { requestAuth, idempotency } = service.services;
  const { store, clock } = service;

  app.post(
    `${prefix}/merchant/${route.name}`,
    {
      schema: { response: { 200: envelopeJsonSchema(route.response, { withTime: route.withTime === true }) } },
      config: { openapi: merchantRouteDoc(route) },
    },
    async (request, reply) => {
      const rawBody = request.body as JsonValue | undefined;
      if (!isJsonObject(rawBody)) throw new AppError(ErrorCode.BODY_NOT_OBJECT, 'body: must be a JSON object');
      const body: JsonObject = rawBody;
      const rawQuery = singleValuedQuery(request.query);

      // Parsed here (CPU only) but reported only after authentication, which
      // runs in the unit of work below: an unauthenticated request learns
      // nothing, and a signed one uses up its nonce whether or not it is valid.
      let input: { body: unknown; query: unknown } | undefined;
      let invalid: unknown;
      let idempotencyKey: string | undefined;
      try {
        const parsed = {
          body: parseOrThrow(route.body, givenMembers(body)),
          // No query string where none is declared: nothing to check (the usual case).
          query: route.query === undefined && Object.keys(rawQuery).length === 0 ? {} : parseOrThrow(route.query ?? emptyQuery, givenMembers(rawQuery), 'query'),
        };
        if (route.kind === 'write' && route.idempotent) idempotencyKey = idempotencyKeyOf(request.raw.headersDistinct[IDEMPOTENCY_HEADER]);
        // Only a request that passed every check reaches the service.
        input = parsed;
      } catch (err) {
        invalid = err;
      }
      const fingerprint = idempotencyKey === undefined ? '' : requestFingerprint(body, rawQuery);
      let ctx: MerchantRouteContext<unknown, unknown> | undefined;
      let outcome: Outcome | undefined;

      // A unit of its own instead (PostgreSQL: one statement), where the route has one and the merchant and what
      // the write reads are cached: it checks they are unchanged, or the unit of work runs after all.
      if (route.alone && input !== undefined && idempotencyKey === undefined) {
        // The route says first whether it can (a list's deep page cannot): a request it cannot do so is not
        // verified twice (here and in the unit of work).
        const merchant = requestAuth.cachedMerchant(body);
        const c = merchant && { merchant, body: input.body, query: input.query, request };
        const attempt = c && route.alone(c);
        const cached = attempt && requestAuth.verifyCached(body, rawQuery);
        if (cached && attempt && cached.merchant === merchant) {
          options.checkApiKey?.(cached.merchant.api_key);
          // A read's nonce is relaxed, as in its unit of work below; a read writes only its nonce, last, and does not
          // wait for another batch's WAL sync (docs/decisions.md, "Reads during a WAL sync").
          const aloneOptions = route.kind === 'write' ? { durable: true } : { durable: false, writesLast: true, fromDurableSnapshot: true };
          let result: unknown;
          for (let tries = 0; (result = await store.writeAlone((tx) => attempt(tx, cached.claim), aloneOptions)) === 'taken'; tries++) {
            if (tries === 4) throw new Error(`${route.name}: five attempts in a row found their order number or pay token taken`);
          }
          if (result === 'declined') {
            // Not verified after all (the rows changed since they were cached, or the nonce is used): the unit of work
            // verifies it against the rows as they are, counts it then, and refuses a replay.
            requestAuth.forgetCached(cached.merchant.api_key);
            options.uncountApiKey?.(cached.merchant.api_key);
          } else {
            ctx = c;
            outcome = { ok: true, value: route.kind === 'write' ? { result } : result };
          }
        }
      }

      // Only the nonce of a read (or of a refused write) needs no flush of its
      // own: it is safe from a process crash at once and on disk with the next
      // durable commit (docs/decisions.md).
      const writes = route.kind === 'write' && input !== undefined;
      outcome ??= await store.write(
        async (tx): Promise<Outcome | undefined> => {
          // Every read of the request runs in this unit of work: SQLite takes
          // its lock once per batch instead of once per statement. A refusal
          // here (authentication, rate limit, a replay) throws: the unit is
          // undone, so nothing is written and the nonce stays unused.
          const verified = await requestAuth.verify(tx, body, rawQuery);
          options.checkApiKey?.(verified.merchant.api_key);
          requestAuth.consumeNonce(verified);
          if (!input) return undefined;
          const c = (ctx = { merchant: verified.merchant, body: input.body, query: input.query, request });
          try {
            if (route.kind === 'read') return { ok: true, value: await route.handle(tx, c) };
            // Savepoint: a refused write leaves the nonce consumed and nothing else.
            return {
              ok: true,
              value: await tx.savepoint(async (tx): Promise<WriteResult> => {
                if (idempotencyKey === undefined) return { result: await route.write(tx, c) };
                const answer = await idempotency.once(tx, {
                  merchantId: verified.merchant.id,
                  key: idempotencyKey,
                  fingerprint,
                  mismatchMessage: 'Idempotency-Key: already used with different parameters',
                  write: async () => {
                    const result = await route.write(tx, c);
                    const notDone = route.notDone?.(result) ?? null;
                    const time = route.withTime ? String(clock.now()) : undefined;
                    const envelope = JSON.stringify(notDone ?? successEnvelope(route.present(result, c), route.message ?? 'success', time));
                    return { answer: envelope, orderId: notDone ? null : (route.orderIdOf?.(result) ?? null) };
                  },
                });
                if (answer.replayed && route.refreshReplay) {
                  const fresh = await route.refreshReplay(tx, JSON.parse(answer.answer) as Envelope<unknown>, c);
                  if (fresh) {
                    const text = JSON.stringify(fresh);
                    await idempotency.replaceAnswer(tx, verified.merchant.id, idempotencyKey, text);
                    return { envelope: text, replayed: true };
                  }
                }
                return { envelope: answer.answer, replayed: answer.replayed };
              }),
            };
          } catch (error) {
            // A refusal of the service is the answer; anything else (storage) fails the unit of work.
            if (!(error instanceof AppError)) throw error;
            return { ok: false, error };
          }
        },
        { durable: writes },
      );
      if (invalid !== undefined) throw invalid;
      if (outcome && !outcome.ok) throw outcome.error;
      if (route.kind === 'write' && 'envelope' in (outcome!.value as WriteResult)) {
        const answer = outcome!.value as { envelope: string; replayed: boolean };
        // First answer and replays are the same stored JSON, so the same bytes.
        if (answer.replayed) reply.header('idempotent-replayed', 'true');
        const envelope = JSON.parse(answer.envelope) as Envelope<unknown>;
        if (envelope.code !== SUCCESS_CODE) statusOf(reply).status(httpStatusOf(envelope.code as ErrorCode));
        return envelope;
      }
      if (route.kind === 'write') {
        const result = (outcome!.value as { result: unknown }).result;
        const notDone = route.notDone?.(result) ?? null;
        if (notDone) return statusOf(reply).status(httpStatusOf(notDone.code as ErrorCode)).send(notDone);
      }

      const data = route.kind === 'write' ? route.present((outcome!.value as { result: unknown }).result, ctx!) : outcome!.value;
      const time = route.withTime ? String(clock.now()) : undefined;
      return successEnvelope(data, route.message ?? 'success', time);
    },
  );
}

/** The reply without the route schema's 200-only typing: an accepted-not-done answer (202) or a replayed refusal has its own status. */
function statusOf(reply: FastifyReply): FastifyReply {
  return reply;
}

/** A merchant route's entry in the OpenAPI document: its own schemas, signed, the idempotency header if it takes one. */
function merchantRouteDoc(route: MerchantRoute): RouteDoc {
  const idempotent = route.kind === 'write' && route.idempotent === true;
  return {
    tag: 'merchant',
    operationId: route.name,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    signed: true,
    ...(route.query ? { query: route.query } : {}),
    ...(idempotent
      ? {
          headers: {
            'Idempotency-Key': {
              description:
                'Replays the first answer (byte for byte) for the same key and parameters instead of writing again; the same key with other parameters is a 409 (code 4003). Per merchant, kept 24 h.',
              schema: idempotencyKeySchema,
            },
          },
        }
      : {}),
    body: { schema: route.body, description: 'The parameters, with api_key, timestamp, nonce and signature (see the requestSignature scheme).' },
    responses: {
      ...(route.kind === 'write' ? route.otherAnswers : {}),
      200: {
        description: 'Done.',
        envelope: route.response,
        withTime: route.withTime === true,
        ...(route.message ? { message: route.message } : {}),
        ...(idempotent ? { headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored first answer of the Idempotency-Key.' } } } : {}),
      },
    },
    errors: route.errors ?? [],
  };
}
