/**
 * POST /channel/notify/<channel_id>: where payment channels report what
 * happened to an order (docs/order-lifecycle.md). Verified by the channel's
 * driver; applied in the request's durable unit of work.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ORDER_STATUSES } from '../../../src-shared/constants';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { isJsonObject, type JsonValue } from '../../../src-shared/json/lossless-json';
import type { MerchantConsoleService } from '../../service';
import { sandboxNotificationBody } from '../../channels/sandbox-driver';
import { envelopeJsonSchema, successEnvelope } from '../envelope';
import type { RouteDoc } from '../openapi/route-doc';

export const notifyResultView = z.object({
  order_no: z.string(),
  status: z.enum(ORDER_STATUSES),
  changed: z.boolean().meta({ description: 'False for a notification the order already reflected.' }),
});

const channelIdParam = z.string().regex(/^[1-9][0-9]{0,9}$/);

const notifyDoc: RouteDoc = {
  tag: 'channels',
  operationId: 'channelNotify',
  summary: 'A payment channel reports what happened to an order',
  description:
    'Verified by the channel\'s driver (signature, freshness, a nonce used once per channel); the order must belong to the channel and the amount match. ' +
    'The event then goes through the order state machine (409, code 4004, when it does not apply). Nothing is written when it is refused.',
  params: { channelId: { description: 'The channel\'s id.', schema: channelIdParam } },
  body: {
    schema: sandboxNotificationBody,
    description: 'Depends on the channel\'s driver; this is the sandbox driver\'s: signed like merchant requests, with HMAC-SHA256 keyed by the channel\'s notify_secret.',
  },
  responses: { 200: { description: 'Applied, or already reflected (`changed: false`).', envelope: notifyResultView } },
  errors: [401, 404, 409],
};

export function registerChannelRoutes(app: FastifyInstance, service: MerchantConsoleService): void {
  app.post<{ Params: { channelId: string } }>(
    '/channel/notify/:channelId',
    { schema: { response: { 200: envelopeJsonSchema(notifyResultView) } }, config: { openapi: notifyDoc } },
    async (request) => {
      const { channelId } = request.params;
      if (!channelIdParam.safeParse(channelId).success) throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${channelId.slice(0, 20)} not found`);
      const body = request.body as JsonValue | undefined;
      if (!isJsonObject(body)) throw new AppError(ErrorCode.BODY_NOT_OBJECT, 'body: must be a JSON object');
      const result = await service.store.write((tx) => service.services.channelNotify.receive(tx, Number(channelId), body));
      return successEnvelope(result);
    },
  );
}
