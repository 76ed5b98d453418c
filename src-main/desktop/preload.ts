/**
 * The console window's preload (sandboxed; bundled to one CommonJS file).
 * It exposes exactly the console API contract as `window.consoleApi` — one
 * function per method, each an `ipcRenderer.invoke` on that method's
 * namespaced channel with the single request object — and the desktop
 * shell's calls as `window.desktopShell` (which store, team server, app
 * lock), and nothing else: no ipcRenderer, no event objects, no generic
 * "invoke any channel".
 *
 * Imports only the method-name lists (no zod, no schemas): the main process
 * validates every payload and checks every sender; the preload stays small
 * and auditable. A team server's console page (the window started with
 * TEAM_PAGE_ARGUMENT, which Electron appends to this preload's process.argv)
 * gets no console API bridge — it talks to its server over HTTPS — and only
 * the shell calls it may make: where it is, and the way back.
 */
import { contextBridge, ipcRenderer } from 'electron';
import {
  CONSOLE_BRIDGE_GLOBAL,
  CONSOLE_METHODS,
  DESKTOP_SHELL_GLOBAL,
  DESKTOP_SHELL_METHODS,
  desktopShellChannelOf,
  ipcChannelOf,
  TEAM_PAGE_ARGUMENT,
  TEAM_PAGE_SHELL_METHODS,
} from '../../src-shared/console-api/methods';

function buildBridge(methods: readonly string[], channelOf: (method: string) => string): Record<string, (request?: unknown) => Promise<unknown>> {
  const bridge: Record<string, (request?: unknown) => Promise<unknown>> = {};
  for (const method of methods) {
    const channel = channelOf(method);
    // Exactly one argument crosses, whatever the page passes.
    bridge[method] = (request?: unknown) => ipcRenderer.invoke(channel, request ?? {});
  }
  return Object.freeze(bridge);
}

const teamPage = process.argv.includes(TEAM_PAGE_ARGUMENT);
const shellChannel = (m: string) => desktopShellChannelOf(m as (typeof DESKTOP_SHELL_METHODS)[number]);
if (!teamPage) contextBridge.exposeInMainWorld(CONSOLE_BRIDGE_GLOBAL, buildBridge(CONSOLE_METHODS, (m) => ipcChannelOf(m as (typeof CONSOLE_METHODS)[number])));
contextBridge.exposeInMainWorld(DESKTOP_SHELL_GLOBAL, buildBridge(teamPage ? TEAM_PAGE_SHELL_METHODS : DESKTOP_SHELL_METHODS, shellChannel));
