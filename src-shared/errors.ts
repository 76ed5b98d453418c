/**
 * The single error type of the service and its codes. Every failure that
 * reaches a client (HTTP envelope, IPC, CLI) is an AppError; the HTTP status
 * is derived from the code here and nowhere else.
 */
import { TIMESTAMP_TOLERANCE_SECONDS } from './constants';

/** Meanings: `meaningByCode` below. */
export const ErrorCode = {
  VALIDATION: 1001,
  MALFORMED_JSON: 1002,
  BODY_NOT_OBJECT: 1003,
  PARAMETER_CONFLICT: 1004,
  UNSUPPORTED_MEDIA_TYPE: 1005,
  BODY_TOO_LARGE: 1006,
  HEADERS_TOO_LARGE: 1007,
  MALFORMED_REQUEST: 1008,
  AUTH_MISSING: 2001,
  AUTH_UNKNOWN_KEY: 2002,
  AUTH_BAD_SIGNATURE: 2003,
  AUTH_STALE_TIMESTAMP: 2004,
  AUTH_NONCE_REUSED: 2005,
  AUTH_CONSOLE_SESSION: 2006,
  FOREIGN_ORIGIN: 2007,
  PERMISSION_DENIED: 2008,
  SIGN_IN_FAILED: 2009,
  SIGN_IN_THROTTLED: 2010,
  NOT_FOUND: 3001,
  CONFLICT: 4001,
  INSUFFICIENT_BALANCE: 4002,
  IDEMPOTENCY_MISMATCH: 4003,
  ILLEGAL_TRANSITION: 4004,
  WITHDRAWAL_HELD: 4005,
  RATE_LIMITED: 4290,
  CHANNEL_FAILURE: 5020,
  INTERNAL: 5000,
  UNAVAILABLE: 5030,
  STORAGE_UNAVAILABLE: 5031,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const httpStatusByCode: Record<ErrorCode, number> = {
  [ErrorCode.VALIDATION]: 400,
  [ErrorCode.MALFORMED_JSON]: 400,
  [ErrorCode.BODY_NOT_OBJECT]: 400,
  [ErrorCode.PARAMETER_CONFLICT]: 400,
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCode.BODY_TOO_LARGE]: 413,
  [ErrorCode.HEADERS_TOO_LARGE]: 431,
  [ErrorCode.MALFORMED_REQUEST]: 400,
  [ErrorCode.AUTH_MISSING]: 401,
  [ErrorCode.AUTH_UNKNOWN_KEY]: 401,
  [ErrorCode.AUTH_BAD_SIGNATURE]: 401,
  [ErrorCode.AUTH_STALE_TIMESTAMP]: 401,
  [ErrorCode.AUTH_NONCE_REUSED]: 401,
  [ErrorCode.AUTH_CONSOLE_SESSION]: 401,
  [ErrorCode.FOREIGN_ORIGIN]: 403,
  [ErrorCode.PERMISSION_DENIED]: 403,
  [ErrorCode.SIGN_IN_FAILED]: 401,
  [ErrorCode.SIGN_IN_THROTTLED]: 429,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.INSUFFICIENT_BALANCE]: 409,
  [ErrorCode.IDEMPOTENCY_MISMATCH]: 409,
  [ErrorCode.ILLEGAL_TRANSITION]: 409,
  [ErrorCode.WITHDRAWAL_HELD]: 202,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.CHANNEL_FAILURE]: 502,
  [ErrorCode.INTERNAL]: 500,
  [ErrorCode.UNAVAILABLE]: 503,
  [ErrorCode.STORAGE_UNAVAILABLE]: 503,
};

export function httpStatusOf(code: ErrorCode): number {
  return httpStatusByCode[code];
}

/**
 * What each code means: the API reference (OpenAPI document) and docs/api.md's
 * error table list code, HTTP status and this text (test/docs/api-doc.test.ts
 * holds the doc to it). Markdown.
 */
const meaningByCode: Record<ErrorCode, string> = {
  [ErrorCode.VALIDATION]: 'A parameter is missing, has the wrong type, is unknown, or breaks a rule.',
  [ErrorCode.MALFORMED_JSON]: 'The body is not well-formed JSON (syntax, duplicate member names, nesting deeper than 32, empty body).',
  [ErrorCode.BODY_NOT_OBJECT]: 'The body is JSON but not an object.',
  [ErrorCode.PARAMETER_CONFLICT]: 'A parameter is given both in the query string and in the body.',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: '`Content-Type` is not `application/json`, or names a charset other than utf-8, or names one more than once.',
  [ErrorCode.BODY_TOO_LARGE]: "The body is larger than the route's limit, named in `msg`: 64 KiB (1 KiB for the checkout page's Pay/Fail forms).",
  [ErrorCode.HEADERS_TOO_LARGE]: 'The request line and headers are larger than 16 KiB (e.g. a huge query string); the connection is then closed.',
  [ErrorCode.MALFORMED_REQUEST]: 'Not a well-formed HTTP request (refused by the HTTP parser before any route); the connection is then closed.',
  [ErrorCode.AUTH_MISSING]: '`api_key`, `timestamp`, `nonce` or `signature` is missing or malformed.',
  [ErrorCode.AUTH_UNKNOWN_KEY]: 'No enabled merchant has this `api_key`.',
  [ErrorCode.AUTH_BAD_SIGNATURE]: 'The signature does not match.',
  [ErrorCode.AUTH_STALE_TIMESTAMP]: `\`timestamp\` is more than ${TIMESTAMP_TOLERANCE_SECONDS} s from the server clock.`,
  [ErrorCode.AUTH_NONCE_REUSED]: 'The nonce was already used with this `api_key` (a channel notification: by this channel).',
  [ErrorCode.AUTH_CONSOLE_SESSION]: 'Console only: no valid console session (missing, expired or revoked).',
  [ErrorCode.FOREIGN_ORIGIN]: 'Console only: the call came from a foreign origin or frame (cross-site browser request, IPC from a non-console frame).',
  [ErrorCode.PERMISSION_DENIED]: "Console only: the signed-in account's role does not allow this call, or the merchant is not one of its merchants.",
  [ErrorCode.SIGN_IN_FAILED]: 'Console only: sign-in refused: name, password or code wrong, or the account disabled (one answer for all).',
  [ErrorCode.SIGN_IN_THROTTLED]: 'Console only: too many failed sign-ins for this name or address; wait (`Retry-After`) before the next try.',
  [ErrorCode.NOT_FOUND]: 'No such order (or it belongs to another merchant), resource or endpoint.',
  [ErrorCode.CONFLICT]: 'The request conflicts with the current state (e.g. no settlement account for a sell).',
  [ErrorCode.INSUFFICIENT_BALANCE]: "The merchant's available balance does not cover the sell order.",
  [ErrorCode.IDEMPOTENCY_MISMATCH]: 'An `Idempotency-Key` (or a console form\'s idempotency key) was reused with different parameters.',
  [ErrorCode.ILLEGAL_TRANSITION]: "The order's state machine refuses this transition.",
  [ErrorCode.WITHDRAWAL_HELD]: "Accepted, not done: the sell order is above the merchant's API withdrawal threshold and waits for a second person's approval (its funds are held); the order is created when approved.",
  [ErrorCode.RATE_LIMITED]: 'Too many requests from this `api_key` or address (the `Retry-After` header says when to retry).',
  [ErrorCode.CHANNEL_FAILURE]: 'The payment channel refused or failed.',
  [ErrorCode.INTERNAL]: 'Unexpected server error; the answer never carries internal details (they are logged).',
  [ErrorCode.UNAVAILABLE]: 'The service is starting or stopping.',
  [ErrorCode.STORAGE_UNAVAILABLE]: 'The store cannot take the write (disk full, data dir read-only, I/O error, database locked by another process): nothing was stored; retry later.',
};

export interface ErrorCodeInfo {
  name: keyof typeof ErrorCode;
  code: ErrorCode;
  httpStatus: number;
  meaning: string;
}

/** Every error code with its HTTP status and meaning, in code order. */
export function errorCodeTable(): ErrorCodeInfo[] {
  return (Object.entries(ErrorCode) as [keyof typeof ErrorCode, ErrorCode][])
    .map(([name, code]) => ({ name, code, httpStatus: httpStatusByCode[code], meaning: meaningByCode[code] }))
    .sort((a, b) => a.code - b.code);
}

export const INTERNAL_ERROR_MESSAGE = 'internal error';

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra, client-safe detail (e.g. Retry-After seconds). */
  readonly detail: Readonly<Record<string, string | number>> | undefined;

  constructor(code: ErrorCode, message: string, detail?: Record<string, string | number>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.detail = detail;
  }

  get httpStatus(): number {
    return httpStatusOf(this.code);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The envelope every endpoint answers with. */
export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
  time?: string;
}

export const SUCCESS_CODE = 1;
