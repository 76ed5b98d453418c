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
import { toBuyOrderView, toOrderView, toSellOrderView } from '../../services/order-service';
import { defineReadRoute, defineWriteRoute, type MerchantRoute } from '../merchant-route';

export function merchantRoutes(service: MerchantConsoleService): MerchantRoute[] {
  const { orders, channels } = service.services;

  return [
    defineReadRoute({
      name: 'orderQueryList',
      body: orderQueryListBody,
      response: orderListView,
      handle: ({ merchant, body }) => orders.list(merchant.id, body),
    }),
    defineReadRoute({
      name: 'orderQueryDetail',
      body: orderQueryDetailBody,
      response: orderView,
      handle: ({ merchant, body }) => toOrderView(orders.requireForMerchant(merchant.id, body.order_no)),
    }),
    defineReadRoute({
      name: 'getPayChannels',
      body: getPayChannelsBody,
      query: getPayChannelsQuery,
      response: payChannelListView,
      handle: ({ merchant, query }) => {
        const list = channels.listForMerchant(merchant.id, query.category);
        return { list, total: list.length };
      },
    }),
    defineWriteRoute({
      name: 'createOrder',
      body: createOrderBody,
      response: createdOrderView,
      message: 'Order created',
      withTime: true,
      write: ({ merchant, body }): OrderRow => {
        const input = body as CreateOrderInput;
        return input.order_type === ORDER_TYPE.BUY ? orders.createBuy(merchant.id, input) : orders.createSell(merchant.id, input);
      },
      present: (row: OrderRow) => (row.order_type === ORDER_TYPE.BUY ? toBuyOrderView(row, service.ctx.publicUrl()) : toSellOrderView(row)),
      idempotent: true,
      orderIdOf: (row: OrderRow) => row.id,
    }),
  ];
}
