/**
 * "Replay or write", the one rule for every idempotent write: createOrder's
 * `Idempotency-Key` (docs/api.md, "Idempotent creation"), the console's
 * createOrder and balance adjustment `idempotency_key`. The same key with
 * the same parameters (timestamp, nonce and signature aside) replays the
 * first answer and writes nothing; the same key with other parameters is
 * refused with 409; keys are per merchant and kept 24 h.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { JsonObject, JsonValue } from '../../src-shared/json/lossless-json';
import { buildSigningString } from '../../src-shared/signing';
import type { IdempotencyRepository } from '../repositories/idempotency-repository';
import type { WriteTx } from '../store/store';
import type { Clock } from './context';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
/** 1–255 printable ASCII characters (0x20–0x7E), no leading or trailing space; the API reference shows this schema. */
export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/);

/**
 * The header's key, undefined when absent; a malformed or repeated one is a 400 naming the header.
 * Takes every line of the header (`headersDistinct`): Node's `headers` joins repeated lines with ", ",
 * which would look like one valid key.
 */
export function idempotencyKeyOf(lines: readonly string[] | undefined): string | undefined {
  if (lines === undefined || lines.length === 0) return undefined;
  if (lines.length > 1) throw new AppError(ErrorCode.VALIDATION, 'Idempotency-Key: given more than once');
  const header = lines[0]!;
  if (!idempotencyKeySchema.safeParse(header).success) {
    throw new AppError(ErrorCode.VALIDATION, 'Idempotency-Key: must be 1-255 printable ASCII characters, without leading or trailing spaces');
  }
  return header;
}

/**
 * The stored key of a console createOrder's `idempotency_key`. The prefix
 * ends in a character no HTTP `Idempotency-Key` can hold (those are printable
 * ASCII), so the two never meet, whatever text either side chooses.
 */
export function consoleIdempotencyKey(key: string): string {
  return `console\u00b7${key}`;
}

/**
 * The stored key of a console adjustBalance's `idempotency_key`: a namespace
 * of its own, so an adjustment's key never meets an order's. Like the
 * createOrder prefix it holds a non-ASCII character (no HTTP key can reach
 * it), and it differs from `console·` at the first character, so no key text
 * on either console method can make the two stored keys equal.
 */
export function adjustmentIdempotencyKey(key: string): string {
  return `adjustment\u00b7${key}`;
}

/**
 * SHA-256 of the request's parameters in the signing canonical form (sorted,
 * values as sent, numbers as their JSON text) without timestamp, nonce and
 * signature: equal for a retry of the same request, different as soon as
 * any parameter differs.
 */
export function requestFingerprint(body: JsonObject, query: Readonly<Record<string, string>>): string {
  const params: Record<string, JsonValue> = { ...body, ...query };
  delete params.timestamp;
  delete params.nonce;
  delete params.signature;
  return createHash('sha256').update(buildSigningString(params, ''), 'utf8').digest('hex');
}

export interface IdempotentWrite {
  merchantId: number;
  /** The stored key (namespaced: consoleIdempotencyKey, adjustmentIdempotencyKey, or the header's value). */
  key: string;
  fingerprint: string;
  /** The refusal when the key was used with other parameters, naming the field. */
  mismatchMessage: string;
  /** Does the write; returns the answer to keep (JSON text) and the order it created, if any. */
  write(): Promise<{ answer: string; orderId: number | null }>;
}

/** Every method runs in the caller's unit of work (tx). */
export function createIdempotencyService({ clock, idempotency }: { clock: Clock; idempotency: IdempotencyRepository }) {
  return {
    /**
     * Runs `write` once per key: the key is taken first (a second instance
     * with the same key waits for this unit of work and then replays its
     * answer), the answer is kept with it in the same unit of work.
     */
    async once(tx: WriteTx, spec: IdempotentWrite): Promise<{ answer: string; replayed: boolean }> {
      const now = clock.now();
      const claimed = await idempotency.claim(tx, {
        merchant_id: spec.merchantId,
        idem_key: spec.key,
        request_hash: spec.fingerprint,
        createtime: now,
        expires_at: now + IDEMPOTENCY_RETENTION_SECONDS,
      });
      if (!claimed) {
        const row = (await idempotency.find(tx, spec.merchantId, spec.key))!;
        if (row.request_hash !== spec.fingerprint) throw new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, spec.mismatchMessage);
        return { answer: row.response, replayed: true };
      }
      const { answer, orderId } = await spec.write();
      await idempotency.complete(tx, spec.merchantId, spec.key, answer, orderId);
      return { answer, replayed: false };
    },

    /** Replaces a kept answer that has moved on (a held withdrawal decided): later replays give the new one. */
    async replaceAnswer(tx: WriteTx, merchantId: number, key: string, answer: string): Promise<void> {
      const row = await idempotency.find(tx, merchantId, key);
      if (row) await idempotency.complete(tx, merchantId, key, answer, row.order_id);
    },

    /** Removes up to `limit` expired keys. */
    purgeExpired(tx: WriteTx, limit: number): Promise<number> {
      return idempotency.purgeExpired(tx, clock.now(), limit);
    },
  };
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
