/** The merchant endpoints of the spec (1–5). */
import { ORDER_TYPE } from '../../../src-shared/constants';
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
} from '../../../src-shared/schemas/merchant-api';
import type { OrderRow } from '../../repositories/order-repository';
import type { MerchantConsoleService } from '../../service';
import { toOrderView } from '../../services/order-service';
import { defineReadRoute, defineWriteRoute, type MerchantRoute } from '../merchant-route';

export function merchantRoutes(service: MerchantConsoleService): MerchantRoute[] {
  const { orders, channels } = service.services;

  return [
    defineReadRoute({
      name: 'orderQueryList',
      summary: 'List the merchant\'s orders, newest first',
      description:
        'Filters: status, order_type and an inclusive createtime range. Sorted by createtime, then order id, descending; a page past the end is an empty list with the real total.',
      body: orderQueryListBody,
      response: orderListView,
      handle: (tx, { merchant, body }) => orders.list(tx, merchant.id, body),
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
      write: (tx, { merchant, body }): Promise<OrderRow> => {
        const input = body as CreateOrderInput;
        return input.order_type === ORDER_TYPE.BUY ? orders.createBuy(tx, merchant.id, input) : orders.createSell(tx, merchant.id, input);
      },
      present: (row: OrderRow) => orders.createdView(row),
      idempotent: true,
      orderIdOf: (row: OrderRow) => row.id,
    }),
  ];
}
