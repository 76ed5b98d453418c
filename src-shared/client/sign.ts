/**
 * Node-side signer: the hash over buildSigningString, plus verification in
 * constant time. Tools import this (or the MerchantClient) to sign requests
 * and to verify callbacks.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { buildSigningString, DEFAULT_SIGN_TYPE, type SignType, type SigningParams } from '../signing';

export function computeSignature(params: SigningParams, secret: string, signType: SignType = DEFAULT_SIGN_TYPE): string {
  const text = buildSigningString(params, secret);
  const digest =
    signType === 'md5'
      ? createHash('md5').update(text, 'utf8').digest('hex')
      : createHmac('sha256', secret).update(text, 'utf8').digest('hex');
  return digest.toUpperCase();
}

/**
 * True when `signature` is the right one, hex in any case (the service writes
 * uppercase; lowercase SDKs are common, docs/decisions.md); the comparison takes constant time.
 */
export function verifySignature(params: SigningParams, signature: string, secret: string, signType: SignType): boolean {
  const expected = Buffer.from(computeSignature(params, secret, signType), 'utf8');
  const given = Buffer.from(signature.toUpperCase(), 'utf8');
  if (given.length !== expected.length) {
    // Still spend the comparison so the length is the only thing a timing attacker learns.
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}
