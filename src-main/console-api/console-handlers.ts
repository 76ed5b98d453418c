/**
 * Service side of the console API: one handler per contract method (the
 * type makes a missing one a compile error), and one dispatcher that both
 * transports use — the desktop IPC wrapper and the /console-api HTTP route.
 * Handlers are thin: they call the same services as the merchant API.
 */
import { AppError, ErrorCode, type Envelope } from '../../src-shared/errors';
import {
  consoleApiContract,
  type ConsoleParsedRequest,
  type ConsoleResponse,
} from '../../src-shared/console-api/contract';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../src-shared/console-api/methods';
import { parseOrThrow } from '../../src-shared/validation/parse';
import { errorEnvelope, internalError, successEnvelope } from '../http/envelope';
import type { MerchantConsoleService } from '../service';

export type ConsoleHandlers = {
  [M in ConsoleMethod]: (request: ConsoleParsedRequest<M>) => ConsoleResponse<M> | Promise<ConsoleResponse<M>>;
};

export interface ConsoleRuntimeInfo {
  version: string;
  listenerUrl(): string | null;
}

export function createConsoleHandlers(service: MerchantConsoleService, runtime: ConsoleRuntimeInfo): ConsoleHandlers {
  const { merchants, channels, orders } = service.services;

  /** Merchant-scoped calls name an existing merchant. */
  function merchantId(id: number): number {
    merchants.require(id);
    return id;
  }

  return {
    getServiceInfo: () => ({ version: runtime.version, data_dir: service.dataDir, listener_url: runtime.listenerUrl() }),
    listMerchants: () => merchants.list(),
    listPayChannels: (req) => {
      const list = channels.listForMerchant(merchantId(req.merchant_id), req.category);
      return { list, total: list.length };
    },
    listOrders: (req) => orders.list(merchantId(req.merchant_id), req),
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
