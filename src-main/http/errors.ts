/**
 * The one place where anything thrown while handling a request becomes an
 * HTTP status and an envelope. 5xx never carry internal messages.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ErrorCode, isAppError } from '../../src-shared/errors';
import { BODY_LIMIT_BYTES } from '../../src-shared/constants';
import { describeStorageProblem, storageProblemOf } from '../store/storage-errors';
import { errorEnvelope, internalError } from './envelope';

const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError(ErrorCode.BODY_TOO_LARGE, `body: larger than ${BODY_LIMIT_BYTES} bytes`),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError(ErrorCode.MALFORMED_JSON, 'body: length does not match Content-Length'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError(ErrorCode.MALFORMED_JSON, 'body: is empty'),
  FST_ERR_CTP_INVALID_CONTENT_TYPE: () => new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json'),
  FST_ERR_BAD_URL: () => new AppError(ErrorCode.VALIDATION, 'url: is malformed'),
};

export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const storage = storageProblemOf(err);
  if (storage) return new AppError(ErrorCode.STORAGE_UNAVAILABLE, `storage: ${describeStorageProblem(storage)}; nothing was stored, try again later`);
  const fe = err as Partial<FastifyError>;
  if (fe.code && FASTIFY_CODES[fe.code]) return FASTIFY_CODES[fe.code]!();
  if (fe.statusCode === 400 && fe.code === 'FST_ERR_VALIDATION') return new AppError(ErrorCode.VALIDATION, fe.message ?? 'invalid request');
  return internalError();
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    let appError = toAppError(err);
    // A body Fastify could not take on a path that does not exist: the path is the real error.
    if (request.is404 && BODY_CODES.has(appError.code)) appError = notFound(request.method, request.url);
    if (appError.code === ErrorCode.INTERNAL || appError.code === ErrorCode.STORAGE_UNAVAILABLE) {
      // The details go to the log only, never to the client.
      request.log.error({ err }, 'request failed');
    }
    if (appError.detail?.retryAfter !== undefined) reply.header('Retry-After', String(appError.detail.retryAfter));
    return reply.status(appError.httpStatus).send(errorEnvelope(appError));
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send(errorEnvelope(notFound(request.method, request.url))));
}

const BODY_CODES: ReadonlySet<number> = new Set([ErrorCode.UNSUPPORTED_MEDIA_TYPE, ErrorCode.MALFORMED_JSON, ErrorCode.BODY_TOO_LARGE]);

function notFound(method: string, url: string): AppError {
  return new AppError(ErrorCode.NOT_FOUND, `${method} ${url.split('?')[0]!.slice(0, 200)}: no such endpoint`);
}
