/**
 * createOrder's `Idempotency-Key` (docs/api.md, "Idempotent creation"): the
 * same key with the same parameters (timestamp, nonce and signature aside)
 * replays the first answer and creates nothing; the same key with other
 * parameters is refused with 409; keys are per merchant and kept 24 h.
 */
import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { JsonObject, JsonValue } from '../../src-shared/json/lossless-json';
import { buildSigningString } from '../../src-shared/signing';
import type { ServiceContext } from './context';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The header's key, undefined when absent; a malformed or repeated one is a 400 naming the header.
 * Takes every line of the header (`headersDistinct`): Node's `headers` joins repeated lines with ", ",
 * which would look like one valid key.
 */
export function idempotencyKeyOf(lines: readonly string[] | undefined): string | undefined {
  if (lines === undefined || lines.length === 0) return undefined;
  if (lines.length > 1) throw new AppError(ErrorCode.VALIDATION, 'Idempotency-Key: given more than once');
  const header = lines[0]!;
  if (!KEY_PATTERN.test(header) || header.trim() !== header) {
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

export function createIdempotencyService(ctx: ServiceContext) {
  const { repos, clock } = ctx;
  return {
    /**
     * In the request's write transaction: the stored answer to replay, or
     * undefined when the key is new (or expired). Throws IDEMPOTENCY_MISMATCH
     * when the key was used with other parameters.
     */
    replayFor(merchantId: number, key: string, fingerprint: string): string | undefined {
      const row = repos.idempotency.find(merchantId, key);
      if (!row || row.expires_at <= clock.now()) return undefined;
      if (row.request_hash !== fingerprint) {
        throw new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, 'Idempotency-Key: already used with different parameters');
      }
      return row.response;
    },

    /** In the same transaction as what it answers for. */
    remember(merchantId: number, key: string, fingerprint: string, response: string, orderId: number | null): void {
      const now = clock.now();
      repos.idempotency.put({
        merchant_id: merchantId,
        idem_key: key,
        request_hash: fingerprint,
        response,
        order_id: orderId,
        createtime: now,
        expires_at: now + IDEMPOTENCY_RETENTION_SECONDS,
      });
    },

    purgeExpired(): number {
      return repos.idempotency.purgeExpired(clock.now());
    },
  };
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
