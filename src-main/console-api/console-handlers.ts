/**
 * Service side of the console API: one handler per contract method (the
 * type makes a missing one a compile error), and one dispatcher that both
 * transports use — the desktop IPC wrapper and the /console-api HTTP route.
 * Handlers are thin: they call the same services as the merchant API, and
 * every write goes through the write queue (one durable commit; a failed
 * write leaves nothing behind).
 */
import { AppError, ErrorCode, type Envelope } from '../../src-shared/errors';
import {
  consoleApiContract,
  type ConsoleParsedRequest,
  type ConsoleResponse,
} from '../../src-shared/console-api/contract';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../src-shared/console-api/methods';
import { ORDER_TYPE } from '../../src-shared/constants';
import type { ListenerSettings, SettingsView } from '../../src-shared/schemas/console';
import { parseOrThrow } from '../../src-shared/validation/parse';
import { errorEnvelope, internalError, successEnvelope } from '../http/envelope';
import type { MerchantConsoleService } from '../service';
import { toBuyOrderView, toSellOrderView } from '../services/order-service';
import { consoleIdempotencyKey, requestFingerprint } from '../services/idempotency-service';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import type { CreatedOrderView } from '../../src-shared/schemas/merchant-api';

export type ConsoleHandlers = {
  [M in ConsoleMethod]: (request: ConsoleParsedRequest<M>) => ConsoleResponse<M> | Promise<ConsoleResponse<M>>;
};

export interface ConsoleRuntimeInfo {
  version: string;
  listenerUrl(): string | null;
  /** The settings the running listener was started with; null (or absent) when none runs here. */
  listenerInUse?(): ListenerSettings | null;
  /** Why the listener is not running (e.g. its port is busy); null when it runs or is switched off. */
  listenerError?(): string | null;
  /**
   * Applies saved listener settings now (the desktop restarts its listener).
   * Absent (serve): they apply at the next start.
   */
  applyListenerSettings?(): Promise<void>;
}

export function createConsoleHandlers(service: MerchantConsoleService, runtime: ConsoleRuntimeInfo): ConsoleHandlers {
  const { merchants, channels, orders, paymentMethods, orderReports, settings, regions, ledger, lifecycle, orderAdmin, callbacks, sandbox, idempotency } =
    service.services;
  const write = <T>(fn: () => T): Promise<T> => service.writeQueue.run(fn);

  /** Merchant-scoped calls name an existing merchant. */
  function merchantId(id: number): number {
    merchants.require(id);
    return id;
  }

  function settingsView(): SettingsView {
    return {
      listener: settings.listener(),
      listener_in_use: runtime.listenerInUse?.() ?? null,
      listener_url: runtime.listenerUrl(),
      listener_error: runtime.listenerError?.() ?? null,
      data_dir: service.dataDir,
      version: runtime.version,
    };
  }

  return {
    getServiceInfo: () => ({
      version: runtime.version,
      data_dir: service.dataDir,
      listener_url: runtime.listenerUrl(),
      listener_error: runtime.listenerError?.() ?? null,
    }),
    getRegionData: (req) => {
      const version = regions.version();
      return req.if_none_match === version.etag ? { ...version, not_modified: true, tree: null } : { ...version, not_modified: false, tree: regions.tree() };
    },

    listPayChannels: (req) => {
      const list = orderReports.channelsForOrders(merchantId(req.merchant_id), req.category);
      return { list, total: list.length };
    },
    listOrders: (req) => orderReports.list(merchantId(req.merchant_id), req),
    getOrder: (req) => orderReports.detail(merchantId(req.merchant_id), req.order_no),
    createOrder: async (req) => {
      const { merchant_id, idempotency_key, ...input } = req;
      const merchant = merchants.require(merchant_id);
      if (merchant.enabled !== 1) throw new AppError(ErrorCode.CONFLICT, `merchant_id: merchant ${merchant_id} is disabled`);
      // Console keys live apart from the HTTP API's Idempotency-Key values of the same merchant.
      const key = idempotency_key === undefined ? undefined : consoleIdempotencyKey(idempotency_key);
      const fingerprint = key === undefined ? '' : requestFingerprint(input as unknown as JsonObject, {});
      return write(() => {
        if (key !== undefined) {
          let stored: string | undefined;
          try {
            stored = idempotency.replayFor(merchant_id, key, fingerprint);
          } catch (err) {
            if (err instanceof AppError && err.code === ErrorCode.IDEMPOTENCY_MISMATCH) {
              throw new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, 'idempotency_key: already used with different order fields');
            }
            throw err;
          }
          if (stored !== undefined) return JSON.parse(stored) as CreatedOrderView;
        }
        const row = input.order_type === ORDER_TYPE.BUY ? orders.createBuy(merchant_id, input) : orders.createSell(merchant_id, input);
        const view = row.order_type === ORDER_TYPE.BUY ? toBuyOrderView(row, service.ctx.publicUrl()) : toSellOrderView(row);
        if (key !== undefined) idempotency.remember(merchant_id, key, fingerprint, JSON.stringify(view), row.id);
        return view;
      });
    },
    exportOrders: (req) => orderReports.exportChunk(merchantId(req.merchant_id), req),
    getDashboardStats: (req) => orderReports.dashboard(merchantId(req.merchant_id)),
    getBalances: (req) => orderAdmin.balances(req.merchant_id),
    listLedger: (req) => {
      // One more than asked tells whether an older page exists.
      const rows = ledger.transactionsOfMerchant(merchantId(req.merchant_id), { beforeId: req.before_id, limit: req.limit + 1 });
      const list = rows.slice(0, req.limit);
      return { list, next_before_id: rows.length > req.limit ? list[list.length - 1]!.id : null };
    },

    listMerchants: () => merchants.list(),
    createMerchant: (req) => write(() => merchants.create(req)),
    updateMerchant: (req) => write(() => merchants.update(req)),
    rotateMerchantSecret: (req) => write(() => merchants.rotateSecret(req.id)),
    listChannels: () => channels.list(),
    createChannel: (req) => write(() => channels.create(req)),
    updateChannel: (req) => write(() => channels.update(req)),
    listChannelLinks: (req) =>
      req.merchant_id !== undefined ? channels.linksOfMerchant(merchantId(req.merchant_id)) : (channels.require(req.channel_id!), channels.linksOfChannel(req.channel_id!)),
    linkChannel: (req) => write(() => channels.link(req)),
    unlinkChannel: (req) =>
      write(() => {
        channels.unlink(req.merchant_id, req.channel_id);
        return { merchant_id: req.merchant_id, channel_id: req.channel_id, unlinked: true as const };
      }),
    listPaymentMethods: (req) => paymentMethods.listOfMerchant(merchantId(req.merchant_id)),
    addPaymentMethod: (req) => write(() => paymentMethods.add(req)),
    setPaymentMethodEnabled: (req) => write(() => paymentMethods.setEnabled(req.id, req.enabled)),
    resendCallback: (req) => {
      orders.requireForMerchant(merchantId(req.merchant_id), req.order_no);
      return write(() => callbacks.resend(req.order_no));
    },
    simulateOrderOutcome: async (req) => {
      orders.requireForMerchant(merchantId(req.merchant_id), req.order_no);
      await write(() => sandbox.simulate(req.order_no, req.action, req.reason ?? `sandbox: ${req.action} (console)`));
      return orderReports.detail(req.merchant_id, req.order_no);
    },
    adjustBalance: (req) => {
      const { idempotency_key, ...input } = req;
      return write(() => orderAdmin.adjust(input, idempotency_key));
    },
    cancelOrder: async (req) => {
      const order = orders.requireForMerchant(merchantId(req.merchant_id), req.order_no);
      await write(() => lifecycle.cancelByOperator(order, req.reason));
      return orderReports.detail(req.merchant_id, req.order_no);
    },
    getSettings: () => settingsView(),
    updateListenerSettings: async (req) => {
      await write(() => settings.updateListener(req));
      await runtime.applyListenerSettings?.();
      return settingsView();
    },
  };
}

export function isConsoleMethod(name: string): name is ConsoleMethod {
  return (CONSOLE_METHODS as readonly string[]).includes(name);
}

export interface ConsoleDispatchLog {
  error(details: { method: string; err: unknown }): void;
}

/**
 * Validates the request against the contract, runs the handler, and answers
 * with the envelope both transports carry: `{code: 1, msg, data}` or
 * `{code, msg, data: null}`. Internal errors are logged, never returned.
 */
export async function dispatchConsoleCall(
  handlers: ConsoleHandlers,
  method: string,
  rawRequest: unknown,
  log?: ConsoleDispatchLog,
): Promise<Envelope<unknown>> {
  try {
    if (!isConsoleMethod(method)) throw new AppError(ErrorCode.NOT_FOUND, `method: no console call named ${method.slice(0, 64)}`);
    const request = parseOrThrow(consoleApiContract[method].request, rawRequest ?? {}, 'request');
    const handler = handlers[method] as (req: unknown) => unknown;
    return successEnvelope(await handler(request));
  } catch (err) {
    if (err instanceof AppError) return errorEnvelope(err);
    log?.error({ method, err });
    return errorEnvelope(internalError());
  }
}
