/**
 * The single error type of the service and its codes. Every failure that
 * reaches a client (HTTP envelope, IPC, CLI) is an AppError; the HTTP status
 * is derived from the code here and nowhere else.
 */
export const ErrorCode = {
  /** A parameter is missing, has the wrong type, or breaks a rule. */
  VALIDATION: 1001,
  /** The body is not well-formed JSON (syntax, duplicate keys, nesting). */
  MALFORMED_JSON: 1002,
  /** The body is JSON but not an object. */
  BODY_NOT_OBJECT: 1003,
  /** A parameter is present both in the body and the query string. */
  PARAMETER_CONFLICT: 1004,
  /** Content-Type is not application/json. */
  UNSUPPORTED_MEDIA_TYPE: 1005,
  /** Body larger than the listener's limit. */
  BODY_TOO_LARGE: 1006,
  /** Request line and headers larger than the HTTP parser accepts (16 KiB). */
  HEADERS_TOO_LARGE: 1007,
  /** Not a well-formed HTTP request (the parser refused it before routing). */
  MALFORMED_REQUEST: 1008,
  /** An authentication parameter is missing or malformed. */
  AUTH_MISSING: 2001,
  /** No enabled merchant has this api_key. */
  AUTH_UNKNOWN_KEY: 2002,
  /** The signature does not match. */
  AUTH_BAD_SIGNATURE: 2003,
  /** timestamp is too far from the server clock. */
  AUTH_STALE_TIMESTAMP: 2004,
  /** The (api_key, nonce) pair was used before. */
  AUTH_NONCE_REUSED: 2005,
  /** Console session missing, expired or revoked. */
  AUTH_CONSOLE_SESSION: 2006,
  /** A console call from a foreign origin or frame (cross-site browser request, IPC from a non-console frame). */
  FOREIGN_ORIGIN: 2007,
  /** The resource does not exist (or belongs to someone else). */
  NOT_FOUND: 3001,
  /** The request conflicts with the current state of a resource. */
  CONFLICT: 4001,
  /** The merchant's available balance does not cover the sell order. */
  INSUFFICIENT_BALANCE: 4002,
  /** An Idempotency-Key was reused with different parameters. */
  IDEMPOTENCY_MISMATCH: 4003,
  /** The order's state machine refuses this transition. */
  ILLEGAL_TRANSITION: 4004,
  /** Too many requests from this api_key or address. */
  RATE_LIMITED: 4290,
  /** The payment channel refused or failed. */
  CHANNEL_FAILURE: 5020,
  /** Anything unexpected; never carries internal details. */
  INTERNAL: 5000,
  /** The service is shutting down or not ready. */
  UNAVAILABLE: 5030,
  /** The store cannot take the write (disk full, read-only, I/O error): nothing was stored. */
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
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.INSUFFICIENT_BALANCE]: 409,
  [ErrorCode.IDEMPOTENCY_MISMATCH]: 409,
  [ErrorCode.ILLEGAL_TRANSITION]: 409,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.CHANNEL_FAILURE]: 502,
  [ErrorCode.INTERNAL]: 500,
  [ErrorCode.UNAVAILABLE]: 503,
  [ErrorCode.STORAGE_UNAVAILABLE]: 503,
};

export function httpStatusOf(code: ErrorCode): number {
  return httpStatusByCode[code];
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

/** Shorthand for a field-level validation failure: the message always names the field. */
export function invalidField(field: string, rule: string): AppError {
  return new AppError(ErrorCode.VALIDATION, `${field}: ${rule}`);
}

/** The envelope every endpoint answers with. */
export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
  time?: string;
}

export const SUCCESS_CODE = 1;
