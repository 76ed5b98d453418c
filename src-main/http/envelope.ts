import { z } from 'zod';
import { AppError, ErrorCode, INTERNAL_ERROR_MESSAGE, SUCCESS_CODE, type Envelope } from '../../src-shared/errors';

export function successEnvelope<T>(data: T, msg = 'success', time?: string): Envelope<T> {
  return time === undefined ? { code: SUCCESS_CODE, msg, data } : { code: SUCCESS_CODE, msg, data, time };
}

export function errorEnvelope(err: AppError): Envelope<null> {
  return { code: err.code, msg: err.message, data: null };
}

export const internalError = (): AppError => new AppError(ErrorCode.INTERNAL, INTERNAL_ERROR_MESSAGE);

/** The JSON schema of `{code, msg, data[, time]}` around a data schema, for Fastify's serializer. */
export function envelopeJsonSchema(data: z.ZodType, { withTime = false } = {}): Record<string, unknown> {
  const dataSchema = z.toJSONSchema(data, { target: 'draft-7', unrepresentable: 'any' }) as Record<string, unknown>;
  delete dataSchema.$schema;
  return {
    type: 'object',
    required: withTime ? ['code', 'msg', 'data', 'time'] : ['code', 'msg', 'data'],
    properties: {
      code: { type: 'integer' },
      msg: { type: 'string' },
      data: dataSchema,
      ...(withTime ? { time: { type: 'string' } } : {}),
    },
  };
}
