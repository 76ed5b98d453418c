/**
 * Freshness of a signed message — a merchant request (docs/api.md) or a
 * channel notification (docs/channels.md): its timestamp must be near the
 * server clock and its nonce well-formed (and then used once, which the
 * nonce repository checks). One rule for both, with one wording.
 */
import { z } from 'zod';
import { NONCE_PATTERN, TIMESTAMP_TOLERANCE_SECONDS } from './constants';
import { AppError, ErrorCode } from './errors';

export const NONCE_RULE = 'must be 8-64 characters of A-Z a-z 0-9 _ -';

/** The `timestamp` member of a signed body. */
export const timestampMember = z.int().meta({ description: `Unix seconds; refused when more than ${TIMESTAMP_TOLERANCE_SECONDS} s from the server clock.` });

/** The `nonce` member of a signed body (its description says who must not repeat it). */
export function nonceMember(description: string) {
  return z.string().regex(NONCE_PATTERN, { error: NONCE_RULE }).meta({ description });
}

export function isWellFormedNonce(nonce: unknown): nonce is string {
  return typeof nonce === 'string' && NONCE_PATTERN.test(nonce);
}

/** Refuses (2004) a timestamp further than the tolerance from the server clock, either way. */
export function checkTimestampFresh(timestamp: number, now: number): void {
  const skew = timestamp - now;
  if (Math.abs(skew) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw new AppError(
      ErrorCode.AUTH_STALE_TIMESTAMP,
      `timestamp: ${skew < 0 ? 'older' : 'later'} than the allowed ${TIMESTAMP_TOLERANCE_SECONDS} s from server time ${now}`,
    );
  }
}
