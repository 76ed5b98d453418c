/**
 * The console API over IPC, main side. Every contract method gets one
 * `ipcMain.handle` on its namespaced channel, all through the same wrapper:
 *   1. the sender must be the main frame of a console page (app://console, or
 *      the dev server from a checkout) — checklist #17;
 *   2. exactly one argument, validated against the contract's schema by
 *      dispatchConsoleCall before any service runs;
 *   3. the answer is always an envelope: `{code: 1, msg, data}` or
 *      `{code, msg, data: null}` — no exception, stack or internal detail
 *      crosses to the renderer.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { CONSOLE_METHODS, ipcChannelOf, type ConsoleMethod } from '../../src-shared/console-api/methods';
import { AppError, ErrorCode, type Envelope } from '../../src-shared/errors';
import { dispatchConsoleCall, type ConsoleDispatchLog, type ConsoleHandlers } from '../console-api/console-handlers';
import { errorEnvelope } from '../http/envelope';
import type { Caller } from '../console-api/caller';
import { isTrustedUrl } from './content-security';

export interface ConsoleIpcOptions {
  trustedOrigins: readonly string[];
  /**
   * Who the window's calls are made as: the owner of the desktop's own store
   * (the operating-system account is the boundary), or null while the app
   * lock is on.
   */
  caller(): Caller | null;
  log?: ConsoleDispatchLog & { warn(line: string): void };
}

/** Only a console page's top frame may call: not an iframe, not another window's page, not a destroyed frame. */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, trustedOrigins: readonly string[]): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame.parent !== null) return false;
  return isTrustedUrl(frame.url, trustedOrigins);
}

/** A console call while the app lock is on (docs/desktop.md, "App lock"). */
export const APP_LOCKED_MESSAGE = "the app is locked: unlock it with the owner's password";

export const FOREIGN_SENDER_MESSAGE = 'sender: console calls are accepted only from the console window';

/** One guarded call: what every registered handler runs. */
export async function guardedConsoleCall(
  handlers: ConsoleHandlers,
  method: ConsoleMethod,
  event: Pick<IpcMainInvokeEvent, 'senderFrame'>,
  args: unknown[],
  options: ConsoleIpcOptions,
): Promise<Envelope<unknown>> {
  if (!isTrustedSender(event, options.trustedOrigins)) {
    options.log?.warn(`refused console call ${method} from ${event.senderFrame?.url.slice(0, 80) ?? 'a destroyed frame'}`);
    return errorEnvelope(new AppError(ErrorCode.FOREIGN_ORIGIN, FOREIGN_SENDER_MESSAGE));
  }
  if (args.length > 1) return errorEnvelope(new AppError(ErrorCode.VALIDATION, 'request: a console call takes one request object'));
  const caller = options.caller();
  if (!caller) return errorEnvelope(new AppError(ErrorCode.AUTH_CONSOLE_SESSION, APP_LOCKED_MESSAGE));
  return dispatchConsoleCall(handlers, method, args[0], caller, options.log);
}

/** Registers every contract method; returns the function that removes them (on quit). */
export function registerConsoleIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, handlers: ConsoleHandlers, options: ConsoleIpcOptions): () => void {
  for (const method of CONSOLE_METHODS) {
    ipcMain.handle(ipcChannelOf(method), (event, ...args: unknown[]) => guardedConsoleCall(handlers, method, event, args, options));
  }
  return () => {
    for (const method of CONSOLE_METHODS) ipcMain.removeHandler(ipcChannelOf(method));
  };
}
