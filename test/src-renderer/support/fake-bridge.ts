/**
 * A ConsoleBridge for component tests: each method answers from a handler
 * the test supplies (success data or an error envelope) and records calls.
 * Unhandled methods fail loudly so a test never passes on a call it did not expect.
 */
import type { ConsoleBridge } from '../../../src-shared/console-api/client';
import type { ConsoleRequest, ConsoleResponse } from '../../../src-shared/console-api/contract';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../../src-shared/console-api/methods';
import type { Envelope } from '../../../src-shared/errors';

export class ServiceError {
  constructor(
    readonly code: number,
    readonly msg: string,
  ) {}
}

export type FakeHandlers = {
  [M in ConsoleMethod]?: (request: ConsoleRequest<M>) => ConsoleResponse<M> | ServiceError | Promise<ConsoleResponse<M> | ServiceError>;
};

export interface FakeBridge {
  bridge: ConsoleBridge;
  calls: { method: ConsoleMethod; request: unknown }[];
  callsOf<M extends ConsoleMethod>(method: M): ConsoleRequest<M>[];
}

export function fakeBridge(handlers: FakeHandlers): FakeBridge {
  const calls: { method: ConsoleMethod; request: unknown }[] = [];
  const bridge = {} as Record<ConsoleMethod, (request: unknown) => Promise<Envelope<unknown>>>;
  for (const method of CONSOLE_METHODS) {
    bridge[method] = async (request) => {
      calls.push({ method, request });
      const handler = handlers[method] as ((r: unknown) => unknown) | undefined;
      if (!handler) return { code: 5000, msg: `test: no fake for ${method}`, data: null };
      const result = await handler(request);
      if (result instanceof ServiceError) return { code: result.code, msg: result.msg, data: null };
      return { code: 1, msg: 'ok', data: result };
    };
  }
  return {
    bridge: bridge as unknown as ConsoleBridge,
    calls,
    callsOf: <M extends ConsoleMethod>(method: M) => calls.filter((c) => c.method === method).map((c) => c.request as ConsoleRequest<M>),
  };
}
