/**
 * Schema-first merchant routes. Each route declares its body schema, an
 * optional query schema, its response (data) schema and whether it writes.
 * The wrapper runs the same steps for all of them:
 *   body is a JSON object → body/query parsed (the verdict kept for later)
 *   → inside one group-commit batch (write-queue.ts): signature verified,
 *   per-api_key rate limit, nonce consumed, service called → after the
 *   commit (a read's nonce is not fsynced on its own): the validation error
 *   if any, else the envelope serialised through the response schema.
 * A write route marked `idempotent` also honours an Idempotency-Key header:
 * inside the same write, a stored first answer is replayed (or a mismatch
 * refused) instead of writing, and a new answer is stored with the write.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src-shared/json/lossless-json';
import { parseOrThrow } from '../../src-shared/validation/parse';
import type { MerchantRow } from '../repositories/merchant-repository';
import type { MerchantConsoleService } from '../service';
import { envelopeJsonSchema, successEnvelope } from './envelope';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, requestFingerprint } from '../services/idempotency-service';

export interface MerchantRouteContext<B, Q> {
  merchant: MerchantRow;
  body: B;
  query: Q;
  request: FastifyRequest;
}

interface MerchantRouteBase<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType> {
  /** Path below `{base_path}/merchant/`. */
  name: string;
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
  handle(ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): z.output<R>;
}

export interface WriteRoute<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType, T> extends MerchantRouteBase<B, Q, R> {
  kind: 'write';
  /** Runs inside the request's write transaction (synchronous, atomic). */
  write(ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): T;
  /** Turns the committed result into the response data (after the commit). */
  present(result: T, ctx: MerchantRouteContext<z.output<B>, z.output<Q>>): z.output<R>;
  /**
   * Honours an `Idempotency-Key` header (docs/api.md): the first answer is
   * stored with the write and replayed for the same key and parameters.
   */
  idempotent?: boolean;
  /** The id of the order a result created, kept with its idempotency key. */
  orderIdOf?(result: T): number;
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
export function givenMembers<T extends JsonValue>(params: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== '') out[name] = value;
  return out;
}

const emptyQuery = z.strictObject({});

/** A write's result, or (idempotent routes) the envelope JSON to answer with. */
type WriteResult = { result: unknown } | { envelope: string; replayed: boolean };
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface MerchantRouteOptions {
  /** Per-api_key rate limit, applied once the signature has verified; throws the 429 AppError. */
  checkApiKey?: ((apiKey: string) => void) | undefined;
}

export function registerMerchantRoute(
  app: FastifyInstance,
  service: MerchantConsoleService,
  prefix: string,
  route: MerchantRoute,
  options: MerchantRouteOptions = {},
): void {
  const { requestAuth, idempotency } = service.services;
  const db = service.db;

  app.post(
    `${prefix}/merchant/${route.name}`,
    { schema: { response: { 200: envelopeJsonSchema(route.response, { withTime: route.withTime === true }) } } },
    async (request, reply) => {
      const rawBody = request.body as JsonValue | undefined;
      if (!isJsonObject(rawBody)) throw new AppError(ErrorCode.BODY_NOT_OBJECT, 'body: must be a JSON object');
      const body: JsonObject = rawBody;
      const rawQuery = singleValuedQuery(request.query);

      // Parsed here (CPU only) but reported only after authentication, which
      // runs in the batch below: an unauthenticated request learns nothing,
      // and a signed one uses up its nonce whether or not it is valid.
      let input: { body: unknown; query: unknown } | undefined;
      let invalid: unknown;
      let idempotencyKey: string | undefined;
      try {
        const parsed = {
          body: parseOrThrow(route.body, givenMembers(body)),
          query: parseOrThrow(route.query ?? emptyQuery, givenMembers(rawQuery), 'query'),
        };
        if (route.kind === 'write' && route.idempotent) idempotencyKey = idempotencyKeyOf(request.raw.headersDistinct[IDEMPOTENCY_HEADER]);
        // Only a request that passed every check reaches the service.
        input = parsed;
      } catch (err) {
        invalid = err;
      }
      const fingerprint = idempotencyKey === undefined ? '' : requestFingerprint(body, rawQuery);
      let ctx: MerchantRouteContext<unknown, unknown> | undefined;

      // Only the nonce of a read (or of a refused write) needs no fsync of its
      // own: it is safe from a process crash at once and on disk with the next
      // durable commit (write-queue.ts, docs/benchmarks.md).
      const writes = route.kind === 'write' && input !== undefined;
      const outcome = await service.writeQueue.run(
        (): Outcome | undefined => {
          // Every SQLite read of the request runs in the batch's transaction:
          // the batch takes SQLite's lock once instead of once per statement.
          // A refusal here (authentication, rate limit) throws: the job's
          // savepoint is undone and the nonce stays unused.
          const verified = requestAuth.verify(body, rawQuery);
          options.checkApiKey?.(verified.merchant.api_key);
          requestAuth.consumeNonce(verified);
          if (!input) return undefined;
          const c = (ctx = { merchant: verified.merchant, body: input.body, query: input.query, request });
          try {
            if (route.kind === 'read') return { ok: true, value: route.handle(c) };
            // Savepoint: a failed write leaves the nonce consumed and nothing else.
            return {
              ok: true,
              value: db.transaction((): WriteResult => {
                if (idempotencyKey === undefined) return { result: route.write(c) };
                const merchantId = verified.merchant.id;
                const replay = idempotency.replayFor(merchantId, idempotencyKey, fingerprint);
                if (replay !== undefined) return { envelope: replay, replayed: true };
                const result = route.write(c);
                const time = route.withTime ? String(service.ctx.clock.now()) : undefined;
                const envelope = JSON.stringify(successEnvelope(route.present(result, c), route.message ?? 'success', time));
                idempotency.remember(merchantId, idempotencyKey, fingerprint, envelope, route.orderIdOf?.(result) ?? null);
                return { envelope, replayed: false };
              })(),
            };
          } catch (error) {
            // SQLite rolled the whole batch back (disk full, I/O): fail it, don't run on outside it.
            if (!db.inTransaction) throw error;
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
        return JSON.parse(answer.envelope) as unknown;
      }

      const data = route.kind === 'write' ? route.present((outcome!.value as { result: unknown }).result, ctx!) : outcome!.value;
      const time = route.withTime ? String(service.ctx.clock.now()) : undefined;
      return successEnvelope(data, route.message ?? 'success', time);
    },
  );
}
