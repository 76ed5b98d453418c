/**
 * The one place where anything thrown while handling a request becomes an
 * HTTP status and an envelope. 5xx never carry internal messages.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ErrorCode, isAppError } from '../../src-shared/errors';
import { BODY_LIMIT_BYTES } from '../../src-shared/constants';
import { describeStorageProblem, storageProblemOf } from '../store/storage-errors';
import { errorEnvelope, internalError } from './envelope';

/** The longest path parameter the router takes (its maxParamLength, server.ts); a longer one is a 404. */
export const MAX_PATH_PARAM_LENGTH = 100;

/** `bodyLimit`: the limit of the route the request was for (the checkout forms take less than the listener's). */
const FASTIFY_CODES: Record<string, (bodyLimit: number) => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (bodyLimit) => new AppError(ErrorCode.BODY_TOO_LARGE, `body: larger than ${bodyLimit} bytes`),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError(ErrorCode.MALFORMED_JSON, 'body: length does not match Content-Length'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError(ErrorCode.MALFORMED_JSON, 'body: is empty'),
  FST_ERR_CTP_INVALID_CONTENT_TYPE: () => new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json'),
  FST_ERR_BAD_URL: () => new AppError(ErrorCode.VALIDATION, 'url: is malformed'),
  // The router's limit on one path parameter (maxParamLength): no pay token or channel id is that long.
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError(ErrorCode.NOT_FOUND, `url: a path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters; no such endpoint`),
};

export function toAppError(err: unknown, bodyLimit: number = BODY_LIMIT_BYTES): AppError {
  if (isAppError(err)) return err;
  const storage = storageProblemOf(err);
  if (storage) return new AppError(ErrorCode.STORAGE_UNAVAILABLE, `storage: ${describeStorageProblem(storage)}; nothing was stored, try again later`);
  const fe = err as Partial<FastifyError>;
  if (fe.code && FASTIFY_CODES[fe.code]) return FASTIFY_CODES[fe.code]!(bodyLimit);
  if (fe.statusCode === 400 && fe.code === 'FST_ERR_VALIDATION') return new AppError(ErrorCode.VALIDATION, fe.message ?? 'invalid request');
  return internalError();
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    if (clientAborted(err, request)) {
      // The client hung up mid-body: nothing went wrong here and nobody is left to answer. A plain
      // line (no stack) at info level, so a client cannot fill the error log by hanging up.
      request.log.info({ code: (err as { code?: string }).code }, 'request aborted by the client');
      return reply.status(400).send(errorEnvelope(new AppError(ErrorCode.MALFORMED_REQUEST, 'request: aborted by the client')));
    }
    let appError = toAppError(err, request.routeOptions.bodyLimit);
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

/** The body stopped because the client closed the connection (Node's "aborted", ECONNRESET). */
function clientAborted(err: unknown, request: FastifyRequest): boolean {
  const code = (err as { code?: unknown }).code;
  return (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') && request.raw.destroyed;
}

const BODY_CODES: ReadonlySet<number> = new Set([ErrorCode.UNSUPPORTED_MEDIA_TYPE, ErrorCode.MALFORMED_JSON, ErrorCode.BODY_TOO_LARGE]);

function notFound(method: string, url: string): AppError {
  return new AppError(ErrorCode.NOT_FOUND, `${method} ${url.split('?')[0]!.slice(0, 200)}: no such endpoint`);
}
