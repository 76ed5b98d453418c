/** The merchant endpoints of the spec (1–5). */
import { z } from 'zod';
import { ORDER_TYPE } from '../../../src-shared/constants';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { formatBeijingTime } from '../../../src-shared/beijing-time';
import {
  createOrderBody,
  createdOrderView,
  getPayChannelsBody,
  getPayChannelsQuery,
  orderListView,
  orderQueryDetailBody,
  orderQueryListBody,
  orderView,
  payChannelListView,
  type CreateOrderInput,
  heldWithdrawalEnvelope,
} from '../../../src-shared/schemas/merchant-api';
import type { OrderRow } from '../../repositories/order-repository';
import type { MerchantConsoleService } from '../../service';
import { toOrderView } from '../../services/order-service';
import { defineReadRoute, defineWriteRoute, type MerchantRoute } from '../merchant-route';
import { errorEnvelope, successEnvelope } from '../envelope';
import { isHeldWithdrawal, type HeldWithdrawal } from '../../services/api-withdrawal-service';

/** What the merchant hears of a held withdrawal (schemas/merchant-api.ts heldWithdrawalEnvelope). */
function heldEnvelope(held: HeldWithdrawal): z.output<typeof heldWithdrawalEnvelope> {
  return {
    code: ErrorCode.WITHDRAWAL_HELD,
    msg: `withdrawal held: request #${held.approval_id} waits for a second person's approval until ${formatBeijingTime(held.expires_at)} (Beijing time); its sum is held, and the order is created when approved`,
    data: { approval_id: held.approval_id, expires_at: held.expires_at },
  };
}

export function merchantRoutes(service: MerchantConsoleService): MerchantRoute[] {
  const { orders, channels, apiWithdrawals } = service.services;

  return [
    defineReadRoute({
      name: 'orderQueryList',
      summary: 'List the merchant\'s orders, newest first',
      description:
        'Filters: status, order_type and an inclusive createtime range. Sorted by createtime, then order id, descending; a page past the end is an empty list with the real total.',
      body: orderQueryListBody,
      response: orderListView,
      handle: (tx, { merchant, body }) => orders.list(tx, merchant.id, body),
      // A page near the top for a cached merchant: a unit of its own with the nonce (PostgreSQL: one statement).
      alone: ({ merchant, body }) => orders.listAlone(merchant.id, body),
    }),
    defineReadRoute({
      name: 'orderQueryDetail',
      summary: 'One order of the merchant',
      description: 'An order of another merchant answers exactly like a missing one: 404, code 3001.',
      errors: [404],
      body: orderQueryDetailBody,
      response: orderView,
      handle: async (tx, { merchant, body }) => toOrderView(await orders.requireForMerchant(tx, merchant.id, body.order_no)),
    }),
    defineReadRoute({
      name: 'getPayChannels',
      summary: 'The enabled channels linked to the merchant',
      description: 'In id order. The `category` query parameter is part of the signature, like the body members.',
      body: getPayChannelsBody,
      query: getPayChannelsQuery,
      response: payChannelListView,
      handle: async (tx, { merchant, query }) => {
        const list = await channels.listForMerchant(tx, merchant.id, query.category);
        return { list, total: list.length };
      },
    }),
    defineWriteRoute({
      name: 'createOrder',
      summary: 'Create a buy (1) or sell (2) order',
      description:
        'Buy: created pending, with a pay_url where the payer pays; the outcome reaches the merchant by callback. ' +
        'Sell: a payout from the merchant\'s balance (409, code 4002, when it does not cover merchant_actual_amount), to the card given ' +
        '(alpha channels: alpha_personal_data and alpha_card_info required) or to the merchant\'s settlement account (beta, gamma).',
      errors: [409, 502],
      body: createOrderBody,
      response: createdOrderView,
      message: 'Order created',
      withTime: true,
      write: (tx, { merchant, body }): Promise<OrderRow | HeldWithdrawal> => {
        const input = body as CreateOrderInput;
        return input.order_type === ORDER_TYPE.BUY ? orders.createBuy(tx, merchant.id, input) : apiWithdrawals.createOrHold(tx, merchant, input);
      },
      // A buy order of a cached merchant and channel: a unit of its own (PostgreSQL: one statement). Sells take the unit of work.
      alone: ({ merchant, body }) => {
        const input = body as CreateOrderInput;
        return input.order_type === ORDER_TYPE.BUY ? orders.planBuyAlone(merchant.id, input) : undefined;
      },
      present: (row) => orders.createdView(row as OrderRow),
      idempotent: true,
      orderIdOf: (row) => (row as OrderRow).id,
      notDone: (result) => (isHeldWithdrawal(result) ? heldEnvelope(result) : null),
      // A held withdrawal's key answers its outcome once a second person decided it.
      refreshReplay: async (tx, stored, { merchant }) => {
        if (stored.code !== ErrorCode.WITHDRAWAL_HELD) return null;
        const { approval_id } = stored.data as { approval_id: number };
        const outcome = await apiWithdrawals.outcome(tx, merchant.id, approval_id);
        if (outcome.state === 'pending') return null;
        if (outcome.state === 'approved') return successEnvelope(orders.createdView(outcome.order), 'Order created', String(service.clock.now()));
        return errorEnvelope(new AppError(ErrorCode.CONFLICT, `withdrawal request #${approval_id} was not approved (${outcome.reason}); nothing was paid out`));
      },
      otherAnswers: {
        202: {
          description:
            "A sell order above the merchant's API withdrawal threshold: accepted, not done (code 4005). Its sum is held while it waits for a second person's approval in the console; the order is created when approved. Replaying the request with its Idempotency-Key answers the outcome once decided.",
          jsonSchema: z.toJSONSchema(heldWithdrawalEnvelope) as Record<string, unknown>,
        },
      },
    }),
  ];
}
