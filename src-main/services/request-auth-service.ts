/**
 * Authentication of merchant API requests by signature (docs/api.md):
 * api_key → merchant, timestamp window, signature over body + query, then
 * the nonce is consumed (in the caller's write transaction).
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { verifySignature } from '../../src-shared/client/sign';
import { NONCE_RETENTION_SECONDS } from '../../src-shared/constants';
import { checkTimestampFresh, isWellFormedNonce, NONCE_RULE } from '../../src-shared/freshness';
import type { JsonObject, JsonValue } from '../../src-shared/json/lossless-json';
import { isSafeText } from '../../src-shared/schemas/fields';
import type { MerchantRow } from '../repositories/merchant-repository';
import type { MerchantClaim } from '../repositories/order-repository';
import type { NonceRepository } from '../repositories/nonce-repository';
import type { WriteTx } from '../store/store';
import type { Clock } from './context';
import type { MerchantService } from './merchant-service';

export interface VerifiedRequest {
  merchant: MerchantRow;
  nonce: string;
  /** The nonce was recorded by verify (false: already used with this api_key). */
  nonceFresh: boolean;
}

/** Keys are 27 characters (merchant-service newApiKey); anything much longer is no merchant's. */
const MAX_API_KEY_LENGTH = 128;

function authError(code: ErrorCode, message: string): AppError {
  return new AppError(code, message);
}

export interface CachedVerification {
  merchant: MerchantRow;
  /** The nonce a unit of its own consumes, and the row generation it stakes. */
  claim: MerchantClaim;
}

const NONCE_REUSED_MESSAGE = 'nonce: already used with this api_key';
/** Merchants kept for verifyCached; past this many the cache starts again. */
const MAX_CACHED_MERCHANTS = 10_000;

interface SignedParts {
  /** Body and query members together: what the signature covers. */
  params: Record<string, JsonValue>;
  apiKey: string;
  timestamp: number;
  nonce: string;
  signature: string;
}

/** The signed request's parts; refuses a name in both query and body, and a missing or malformed credential. */
function signedPartsOf(body: JsonObject, query: Readonly<Record<string, string>>): SignedParts {
  const params: Record<string, JsonValue> = { ...body };
  for (const [name, value] of Object.entries(query)) {
    if (Object.hasOwn(body, name)) {
      throw new AppError(ErrorCode.PARAMETER_CONFLICT, `${name}: given in both the query string and the body`);
    }
    params[name] = value;
  }
  const apiKey = body.api_key;
  if (typeof apiKey !== 'string' || apiKey.length === 0) throw authError(ErrorCode.AUTH_MISSING, 'api_key: is required');
  const timestamp = body.timestamp;
  if (typeof timestamp !== 'number') {
    throw authError(ErrorCode.AUTH_MISSING, timestamp === undefined ? 'timestamp: is required' : 'timestamp: must be an integer of Unix seconds');
  }
  const nonce = body.nonce;
  if (!isWellFormedNonce(nonce)) throw authError(ErrorCode.AUTH_MISSING, nonce === undefined ? 'nonce: is required' : `nonce: ${NONCE_RULE}`);
  const signature = body.signature;
  if (typeof signature !== 'string' || signature.length === 0) throw authError(ErrorCode.AUTH_MISSING, 'signature: is required');
  return { params, apiKey, timestamp, nonce, signature };
}

export interface RequestAuthDeps {
  clock: Clock;
  nonces: NonceRepository;
  merchants: MerchantService;
}

/** Every method runs in the caller's unit of work (tx). */
export function createRequestAuthService({ clock, nonces, merchants }: RequestAuthDeps) {
  // Merchants as a verified request last found them, with the row generation they were read at: never trusted on
  // their own, only staked in a unit that checks the generation (order repository, insertWithNonceIfCurrent).
  const verifiedBefore = new Map<string, { merchant: MerchantRow; generation: string }>();
  return {
    /**
     * Checks the signed request. `query` holds the query-string parameters
     * (strings); a name in both query and body is refused. The nonce is
     * recorded in the same step as the merchant's lookup (one round trip on
     * PostgreSQL), so the caller must undo its unit of work when it refuses
     * the request (a refusal here throws); whether the nonce was fresh is
     * decided by consumeNonce, after any checks the caller makes first.
     */
    async verify(tx: WriteTx, body: JsonObject, query: Readonly<Record<string, string>>): Promise<VerifiedRequest> {
      const signed = signedPartsOf(body, query);
      const { apiKey, nonce } = signed;
      // A key with control characters is no merchant's (and NUL cannot even be sent to PostgreSQL), nor one far
      // longer than any key newApiKey makes (it would be recorded with the nonce first): unknown, without a lookup.
      const found = isSafeText(apiKey) && apiKey.length <= MAX_API_KEY_LENGTH ? await nonces.merchantConsumingNonce(tx, apiKey, nonce, clock.now() + NONCE_RETENTION_SECONDS) : undefined;
      const merchant = found?.merchant;
      if (!merchant || merchant.enabled !== 1) throw authError(ErrorCode.AUTH_UNKNOWN_KEY, 'api_key: unknown or disabled');

      checkTimestampFresh(signed.timestamp, clock.now());

      if (!verifySignature(signed.params, signed.signature, merchants.secretOf(merchant), merchant.sign_type)) {
        throw authError(ErrorCode.AUTH_BAD_SIGNATURE, `signature: does not match (sign type ${merchant.sign_type})`);
      }
      if (found.generation !== undefined) {
        if (verifiedBefore.size >= MAX_CACHED_MERCHANTS) verifiedBefore.clear();
        verifiedBefore.set(apiKey, { merchant, generation: found.generation });
      }
      return { merchant, nonce, nonceFresh: found.fresh };
    },

    /**
     * verify without a lookup, against the merchant as an earlier request
     * found it, with the row generation it was read at. Nothing is recorded:
     * the claim is for a write that checks the generation and consumes the
     * nonce in a unit of its own (Store.writeAlone). Undefined
     * whenever this cannot accept the request (not seen yet, or any check
     * fails): verify, in a unit of work, then decides and says why.
     */
    verifyCached(body: JsonObject, query: Readonly<Record<string, string>>): CachedVerification | undefined {
      // Nothing cached: no work twice.
      if (verifiedBefore.size === 0) return undefined;
      let signed: SignedParts;
      try {
        signed = signedPartsOf(body, query);
      } catch {
        return undefined;
      }
      const cached = verifiedBefore.get(signed.apiKey);
      if (!cached || cached.merchant.enabled !== 1) return undefined;
      const now = clock.now();
      try {
        checkTimestampFresh(signed.timestamp, now);
      } catch {
        return undefined;
      }
      if (!verifySignature(signed.params, signed.signature, merchants.secretOf(cached.merchant), cached.merchant.sign_type)) return undefined;
      return {
        merchant: cached.merchant,
        claim: {
          apiKey: signed.apiKey,
          nonce: signed.nonce,
          nonceExpiresAt: now + NONCE_RETENTION_SECONDS,
          merchantId: cached.merchant.id,
          generation: cached.generation,
        },
      };
    },

    /** The merchant verifyCached would check the request against (by its api_key), unverified; undefined when none is cached. */
    cachedMerchant(body: JsonObject): MerchantRow | undefined {
      return typeof body.api_key === 'string' ? verifiedBefore.get(body.api_key)?.merchant : undefined;
    },

    /** Drops a cached merchant a unit of its own declined (the generation moved on, or the request was a replay). */
    forgetCached(apiKey: string): void {
      verifiedBefore.delete(apiKey);
    },

    /** Throws on a replay (the nonce verify recorded was already used). */
    consumeNonce(req: VerifiedRequest): void {
      if (!req.nonceFresh) throw authError(ErrorCode.AUTH_NONCE_REUSED, NONCE_REUSED_MESSAGE);
    },

    /** Removes up to `limit` nonces whose timestamps can no longer be accepted. */
    purgeExpiredNonces(tx: WriteTx, limit: number): Promise<number> {
      return nonces.purgeExpired(tx, clock.now(), limit);
    },
  };
}
export type RequestAuthService = ReturnType<typeof createRequestAuthService>;
