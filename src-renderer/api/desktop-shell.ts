/**
 * The desktop shell's calls (src-shared/console-api/desktop-shell-contract.ts):
 * which store the window works on, the team server, the app lock. The preload
 * exposes them as `window.desktopShell` — all of them in the app's own window,
 * only where it is and the way back on a team server's page; absent in a
 * browser. Typed like the console API, failures as ConsoleApiError.
 */
import { unwrapEnvelope } from '../../src-shared/console-api/client';
import type { DesktopShellRequest, DesktopShellResponse } from '../../src-shared/console-api/desktop-shell-contract';
import { DESKTOP_SHELL_GLOBAL, DESKTOP_SHELL_METHODS, type DesktopShellMethod } from '../../src-shared/console-api/methods';
import type { Envelope } from '../../src-shared/errors';

export type DesktopShellApi = { [M in DesktopShellMethod]: (request: DesktopShellRequest<M>) => Promise<DesktopShellResponse<M>> };
/** What the preload gives: some of the methods (a team server's page gets two), each answering an envelope. */
export type DesktopShellBridge = Partial<Record<DesktopShellMethod, (request: unknown) => Promise<Envelope<unknown>>>>;

/** The preload's shell bridge, or undefined outside the desktop window. */
export function desktopShellBridge(scope: object = globalThis): DesktopShellBridge | undefined {
  const value = (scope as Record<string, unknown>)[DESKTOP_SHELL_GLOBAL];
  return typeof value === 'object' && value !== null ? (value as DesktopShellBridge) : undefined;
}

/** The calls the bridge offers, typed; the others are absent (check with `in`). */
export function createDesktopShellApi(bridge: DesktopShellBridge): Partial<DesktopShellApi> {
  const api: Partial<Record<DesktopShellMethod, (request: unknown) => Promise<unknown>>> = {};
  for (const method of DESKTOP_SHELL_METHODS) {
    const call = bridge[method];
    if (typeof call === 'function') api[method] = unwrapEnvelope(call);
  }
  return api as Partial<DesktopShellApi>;
}
