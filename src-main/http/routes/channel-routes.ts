/**
 * POST /channel/notify/<channel_id>: where payment channels report what
 * happened to an order (docs/order-lifecycle.md). Verified by the channel's
 * driver; applied in the request's durable write.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ORDER_STATUSES } from '../../../src-shared/constants';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { isJsonObject, type JsonValue } from '../../../src-shared/json/lossless-json';
import type { MerchantConsoleService } from '../../service';
import { envelopeJsonSchema, successEnvelope } from '../envelope';

export const notifyResultView = z.object({
  order_no: z.string(),
  status: z.enum(ORDER_STATUSES),
  changed: z.boolean(),
});

export function registerChannelRoutes(app: FastifyInstance, service: MerchantConsoleService): void {
  app.post<{ Params: { channelId: string } }>(
    '/channel/notify/:channelId',
    { schema: { response: { 200: envelopeJsonSchema(notifyResultView) } } },
    async (request) => {
      const { channelId } = request.params;
      if (!/^[1-9][0-9]{0,9}$/.test(channelId)) throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${channelId.slice(0, 20)} not found`);
      const body = request.body as JsonValue | undefined;
      if (!isJsonObject(body)) throw new AppError(ErrorCode.BODY_NOT_OBJECT, 'body: must be a JSON object');
      const result = await service.writeQueue.run(() => service.services.channelNotify.receive(Number(channelId), body));
      return successEnvelope(result);
    },
  );
}
