/**
 * The console API contract: every call the console UI makes, with its
 * request and response schema. The desktop preload exposes exactly these
 * methods over IPC; `serve` exposes the same at /console-api/<method>; the
 * renderer's client type is derived from this map, never written by hand.
 *
 * scope: 'public' needs no merchant; 'merchant' calls act for the merchant
 * named by `merchant_id` in the request; 'operator' calls administer.
 */
import { z } from 'zod';
import { CONSOLE_METHODS, type ConsoleMethod } from './methods';
import { categoryField, orderStatusField, orderTypeField, positiveId, unixSeconds } from '../schemas/fields';
import { orderListView, payChannelListView } from '../schemas/merchant-api';
import { merchantView } from '../schemas/operator';
import { LIST_DEFAULT_LIMIT, LIST_DEFAULT_PAGE, LIST_MAX_LIMIT } from '../constants';

export type ConsoleScope = 'public' | 'merchant' | 'operator';

export interface ContractEntry<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  scope: ConsoleScope;
  request: Req;
  response: Res;
}

function entry<Req extends z.ZodType, Res extends z.ZodType>(scope: ConsoleScope, request: Req, response: Res): ContractEntry<Req, Res> {
  return { scope, request, response };
}

const merchantScoped = { merchant_id: positiveId };

export const serviceInfoView = z.object({
  version: z.string(),
  data_dir: z.string(),
  /** Where the embedded listener answers, or null when it is off. */
  listener_url: z.string().nullable(),
});

export const consoleApiContract = {
  getServiceInfo: entry('public', z.strictObject({}), serviceInfoView),
  listMerchants: entry('operator', z.strictObject({}), z.array(merchantView)),
  listPayChannels: entry('merchant', z.strictObject({ ...merchantScoped, category: categoryField.optional() }), payChannelListView),
  listOrders: entry(
    'merchant',
    z.strictObject({
      ...merchantScoped,
      page: z.int().min(1).default(LIST_DEFAULT_PAGE),
      limit: z.int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
      status: orderStatusField.optional(),
      order_type: orderTypeField.optional(),
      start_time: unixSeconds.optional(),
      end_time: unixSeconds.optional(),
    }),
    orderListView,
  ),
  // `satisfies` makes a method missing from, or extra to, methods.ts a compile error.
} satisfies Record<ConsoleMethod, ContractEntry>;

export type ConsoleApiContract = typeof consoleApiContract;
/** What the caller sends (defaults may be omitted). */
export type ConsoleRequest<M extends ConsoleMethod> = z.input<ConsoleApiContract[M]['request']>;
/** What the handler receives after validation (defaults applied). */
export type ConsoleParsedRequest<M extends ConsoleMethod> = z.output<ConsoleApiContract[M]['request']>;
export type ConsoleResponse<M extends ConsoleMethod> = z.output<ConsoleApiContract[M]['response']>;

/** The console API as the renderer sees it: one async function per method. */
export type ConsoleApi = { [M in ConsoleMethod]: (request: ConsoleRequest<M>) => Promise<ConsoleResponse<M>> };

export { CONSOLE_METHODS };
export type { ConsoleMethod };
