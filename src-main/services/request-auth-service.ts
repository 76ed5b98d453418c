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
import type { NonceRepository } from '../repositories/nonce-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';
import type { MerchantService } from './merchant-service';

export interface VerifiedRequest {
  merchant: MerchantRow;
  nonce: string;
}

function authError(code: ErrorCode, message: string): AppError {
  return new AppError(code, message);
}

export interface RequestAuthDeps {
  clock: Clock;
  nonces: NonceRepository;
  merchants: MerchantService;
}

/** Every method runs in the caller's unit of work (tx). */
export function createRequestAuthService({ clock, nonces, merchants }: RequestAuthDeps) {
  return {
    /**
     * Checks everything that needs no write. `query` holds the query-string
     * parameters (strings); a name in both query and body is refused.
     */
    async verify(tx: ReadTx, body: JsonObject, query: Readonly<Record<string, string>>): Promise<VerifiedRequest> {
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

      // A key with control characters is no merchant's (and NUL cannot even be sent to PostgreSQL): unknown, without a lookup.
      const merchant = isSafeText(apiKey) ? await merchants.findByApiKey(tx, apiKey) : undefined;
      if (!merchant || merchant.enabled !== 1) throw authError(ErrorCode.AUTH_UNKNOWN_KEY, 'api_key: unknown or disabled');

      checkTimestampFresh(timestamp, clock.now());

      if (!verifySignature(params, signature, merchants.secretOf(merchant), merchant.sign_type)) {
        throw authError(ErrorCode.AUTH_BAD_SIGNATURE, `signature: does not match (sign type ${merchant.sign_type})`);
      }
      return { merchant, nonce };
    },

    /** Call inside the write transaction of the request; throws on a replay. */
    async consumeNonce(tx: WriteTx, req: VerifiedRequest): Promise<void> {
      if (!(await nonces.consume(tx, req.merchant.api_key, req.nonce, clock.now() + NONCE_RETENTION_SECONDS))) {
        throw authError(ErrorCode.AUTH_NONCE_REUSED, 'nonce: already used with this api_key');
      }
    },

    purgeExpiredNonces(tx: WriteTx): Promise<number> {
      return nonces.purgeExpired(tx, clock.now());
    },
  };
}
export type RequestAuthService = ReturnType<typeof createRequestAuthService>;
