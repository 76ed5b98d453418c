/**
 * Two-factor codes: TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30 s steps) with
 * the otpauth library; a code from the step before or after is accepted
 * (clock drift), and each step once per account (the store keeps the last
 * one used, account-repository.ts).
 */
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_ISSUER = 'Merchant Console';

function totpOf(secretBase32: string, login: string): TOTP {
  return new TOTP({ issuer: TOTP_ISSUER, label: login, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** A new secret (160 bits) and how an authenticator app takes it. */
export async function newTotpEnrolment(login: string): Promise<{ secret: string; otpauthUri: string; qrDataUrl: string }> {
  const secret = new Secret({ size: 20 }).base32;
  const otpauthUri = totpOf(secret, login).toString();
  return { secret, otpauthUri, qrDataUrl: await QRCode.toDataURL(otpauthUri, { errorCorrectionLevel: 'M', margin: 2, scale: 6 }) };
}

/** The time step a code belongs to (now ±1 step), or null when it is not a current code. */
export function totpStepOf(secretBase32: string, login: string, code: string, nowSeconds: number): number | null {
  const delta = totpOf(secretBase32, login).validate({ token: code, timestamp: nowSeconds * 1000, window: 1 });
  return delta === null ? null : Math.floor(nowSeconds / TOTP_PERIOD_SECONDS) + delta;
}

/** The current code (tests and the CLI's self-check). */
export function totpCodeAt(secretBase32: string, login: string, nowSeconds: number): string {
  return totpOf(secretBase32, login).generate({ timestamp: nowSeconds * 1000 });
}
