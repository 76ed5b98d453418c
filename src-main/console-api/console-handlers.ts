/**
 * Service side of the console API: one handler per contract method (the
 * type makes a missing one a compile error), and one dispatcher that both
 * transports use — the desktop IPC wrapper and the /console-api HTTP route.
 * Handlers are thin: they call the same services as the merchant API, each
 * call in one unit of work of the store (a write: one durable commit; a
 * failed write leaves nothing behind).
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
import { callerCan, callerServes, isPlatformCaller, type Caller } from './caller';
import type { MerchantConsoleService } from '../service';
import { consoleIdempotencyKey, requestFingerprint } from '../services/idempotency-service';
import type { ReadTx, WriteTx } from '../store/store';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import type { CreatedOrderView } from '../../src-shared/schemas/merchant-api';

export type ConsoleHandlers = {
  [M in ConsoleMethod]: (request: ConsoleParsedRequest<M>, caller: Caller) => ConsoleResponse<M> | Promise<ConsoleResponse<M>>;
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
  const { merchants, channels, orders, paymentMethods, orderReports, settings, regions, ledger, orderAdmin, callbacks, sandbox, idempotency } =
    service.services;
  const read = <T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> => service.store.read(fn);
  const write = <T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> => service.store.write(fn);

  /** Merchant-scoped calls name an existing merchant. */
  async function merchantId(tx: ReadTx, id: number): Promise<number> {
    await merchants.require(tx, id);
    return id;
  }

  async function settingsView(): Promise<SettingsView> {
    return {
      listener: await read((tx) => settings.listener(tx)),
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

    listPayChannels: (req) =>
      read(async (tx) => {
        const list = await orderReports.channelsForOrders(tx, await merchantId(tx, req.merchant_id), req.category);
        return { list, total: list.length };
      }),
    listOrders: (req) => read(async (tx) => orderReports.list(tx, await merchantId(tx, req.merchant_id), req)),
    getOrder: (req) => read(async (tx) => orderReports.detail(tx, await merchantId(tx, req.merchant_id), req.order_no)),
    createOrder: (req) => {
      const { merchant_id, idempotency_key, ...input } = req;
      return write(async (tx) => {
        const merchant = await merchants.require(tx, merchant_id);
        if (merchant.enabled !== 1) throw new AppError(ErrorCode.CONFLICT, `merchant_id: merchant ${merchant_id} is disabled`);
        const create = async () => {
          const row = input.order_type === ORDER_TYPE.BUY ? await orders.createBuy(tx, merchant_id, input) : await orders.createSell(tx, merchant_id, input);
          return { row, view: orders.createdView(row) };
        };
        if (idempotency_key === undefined) return (await create()).view;
        const { answer } = await idempotency.once(tx, {
          merchantId: merchant_id,
          // Console keys live apart from the HTTP API's Idempotency-Key values of the same merchant.
          key: consoleIdempotencyKey(idempotency_key),
          fingerprint: requestFingerprint(input as unknown as JsonObject, {}),
          mismatchMessage: 'idempotency_key: already used with different order fields',
          write: async () => {
            const { row, view } = await create();
            return { answer: JSON.stringify(view), orderId: row.id };
          },
        });
        return JSON.parse(answer) as CreatedOrderView;
      });
    },
    exportOrders: (req) => read(async (tx) => orderReports.exportChunk(tx, await merchantId(tx, req.merchant_id), req)),
    getDashboardStats: async (req) => {
      await read((tx) => merchantId(tx, req.merchant_id));
      return orderReports.dashboard(req.merchant_id);
    },
    getBalances: (req) => read((tx) => orderAdmin.balances(tx, req.merchant_id)),
    listLedger: (req) =>
      read(async (tx) => {
        // One more than asked tells whether an older page exists.
        const rows = await ledger.transactionsOfMerchant(tx, await merchantId(tx, req.merchant_id), { beforeId: req.before_id, limit: req.limit + 1 });
        const list = rows.slice(0, req.limit);
        return { list, next_before_id: rows.length > req.limit ? list[list.length - 1]!.id : null };
      }),

    listMerchants: () => read((tx) => merchants.list(tx)),
    createMerchant: (req) => write((tx) => merchants.create(tx, req)),
    updateMerchant: (req) => write((tx) => merchants.update(tx, req)),
    rotateMerchantSecret: (req) => write((tx) => merchants.rotateSecret(tx, req.id)),
    listChannels: () => read((tx) => channels.list(tx)),
    createChannel: (req) => write((tx) => channels.create(tx, req)),
    updateChannel: (req) => write((tx) => channels.update(tx, req)),
    listChannelLinks: (req) =>
      read(async (tx) => {
        if (req.merchant_id !== undefined) return channels.linksOfMerchant(tx, await merchantId(tx, req.merchant_id));
        await channels.require(tx, req.channel_id!);
        return channels.linksOfChannel(tx, req.channel_id!);
      }),
    linkChannel: (req) => write((tx) => channels.link(tx, req)),
    unlinkChannel: (req) =>
      write(async (tx) => {
        await channels.unlink(tx, req.merchant_id, req.channel_id);
        return { merchant_id: req.merchant_id, channel_id: req.channel_id, unlinked: true as const };
      }),
    listPaymentMethods: (req) => read(async (tx) => paymentMethods.listOfMerchant(tx, await merchantId(tx, req.merchant_id))),
    addPaymentMethod: (req) => write((tx) => paymentMethods.add(tx, req)),
    setPaymentMethodEnabled: (req) => write((tx) => paymentMethods.setEnabled(tx, req.id, req.enabled)),
    resendCallback: (req) =>
      write(async (tx) => {
        await orders.requireForMerchant(tx, await merchantId(tx, req.merchant_id), req.order_no);
        return callbacks.resend(tx, req.order_no);
      }),
    simulateOrderOutcome: (req) =>
      write(async (tx) => {
        await orders.requireForMerchant(tx, await merchantId(tx, req.merchant_id), req.order_no);
        await sandbox.simulate(tx, req.order_no, req.action, req.reason ?? `sandbox: ${req.action} (console)`);
        return orderReports.detail(tx, req.merchant_id, req.order_no);
      }),
    adjustBalance: (req) => {
      const { idempotency_key, ...input } = req;
      return write((tx) => orderAdmin.adjust(tx, input, idempotency_key));
    },
    cancelOrder: (req) =>
      write(async (tx) => {
        const order = await orders.requireForMerchant(tx, await merchantId(tx, req.merchant_id), req.order_no);
        await service.services.lifecycle.cancelByOperator(tx, order, req.reason);
        return orderReports.detail(tx, req.merchant_id, req.order_no);
      }),
    getSettings: () => settingsView(),
    updateListenerSettings: async (req) => {
      await write((tx) => settings.updateListener(tx, req));
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
 * The gate both transports pass every call through, in this order: a known
 * method; a caller (no session: 401); the permission the contract names for
 * the method (403); the request against its schema (400); the merchant scope
 * (403: a merchant the caller does not serve, or a platform call by an
 * account limited to some merchants); then the handler. Answers with the
 * envelope both transports carry: `{code: 1, msg, data}` or
 * `{code, msg, data: null}`. Internal errors are logged, never returned.
 */
export async function dispatchConsoleCall(
  handlers: ConsoleHandlers,
  method: string,
  rawRequest: unknown,
  caller: Caller | null,
  log?: ConsoleDispatchLog,
): Promise<Envelope<unknown>> {
  try {
    if (!isConsoleMethod(method)) throw new AppError(ErrorCode.NOT_FOUND, `method: no console call named ${method.slice(0, 64)}`);
    if (!caller) throw new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in');
    const entry = consoleApiContract[method];
    if (entry.permission !== null && !callerCan(caller, entry.permission)) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, `${method}: the ${caller.role} role may not do this (it needs ${entry.permission})`);
    }
    const request = parseOrThrow(entry.request, rawRequest ?? {}, 'request');
    if (entry.scope === 'platform' && !isPlatformCaller(caller)) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, `${method}: for platform staff only; this account acts for some merchants only`);
    }
    if (entry.scope === 'merchant') {
      const merchantId = (request as { merchant_id?: unknown }).merchant_id;
      if (typeof merchantId !== 'number' || !callerServes(caller, merchantId)) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, `merchant_id: merchant ${String(merchantId)} is not one of this account's merchants`);
      }
    }
    const handler = handlers[method] as (req: unknown, caller: Caller) => unknown;
    return successEnvelope(await handler(request, caller));
  } catch (err) {
    if (err instanceof AppError) return errorEnvelope(err);
    log?.error({ method, err });
    return errorEnvelope(internalError());
  }
}
