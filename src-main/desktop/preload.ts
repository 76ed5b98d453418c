/**
 * The console window's preload (sandboxed; bundled to one CommonJS file).
 * It exposes exactly the console API contract as `window.consoleApi` — one
 * function per method, each an `ipcRenderer.invoke` on that method's
 * namespaced channel with the single request object — and nothing else:
 * no ipcRenderer, no event objects, no generic "invoke any channel".
 *
 * Imports only the method-name list (no zod, no schemas): the main process
 * validates every payload; the preload stays small and auditable.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { CONSOLE_BRIDGE_GLOBAL, CONSOLE_METHODS, ipcChannelOf } from '../../src-shared/console-api/methods';

function buildBridge(): Record<string, (request?: unknown) => Promise<unknown>> {
  const bridge: Record<string, (request?: unknown) => Promise<unknown>> = {};
  for (const method of CONSOLE_METHODS) {
    const channel = ipcChannelOf(method);
    // Exactly one argument crosses, whatever the page passes.
    bridge[method] = (request?: unknown) => ipcRenderer.invoke(channel, request ?? {});
  }
  return Object.freeze(bridge);
}

contextBridge.exposeInMainWorld(CONSOLE_BRIDGE_GLOBAL, buildBridge());
