/**
 * The renderer's view of the desktop transport: in the desktop window the
 * preload puts a ConsoleBridge at `window.consoleApi` (IPC); in a browser it
 * is absent and the console uses the HTTP bridge. Importing this module
 * brings the global's type into scope. No Electron here: it runs in any
 * browser.
 */
import type { ConsoleBridge } from './client';
import { CONSOLE_BRIDGE_GLOBAL } from './methods';

declare global {
  interface Window {
    /** Present only in the desktop window (set by its preload). */
    readonly consoleApi?: ConsoleBridge;
  }
}

/** The desktop's IPC bridge, or undefined outside the desktop window. */
export function desktopConsoleBridge(scope: object = globalThis): ConsoleBridge | undefined {
  const value = (scope as Record<string, unknown>)[CONSOLE_BRIDGE_GLOBAL];
  return typeof value === 'object' && value !== null ? (value as ConsoleBridge) : undefined;
}
