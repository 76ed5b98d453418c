/**
 * The desktop's embedded HTTP listener: started from the stored listener
 * settings, never fatal. A busy port (or any other failure to listen) is
 * kept as a message for the console to show, while the console itself keeps
 * working over IPC. Closing drains in-flight requests (Fastify close).
 * No electron here.
 */
import type { ListenerSettings } from '../../src-shared/schemas/console';
import { startListener, type RunningListener } from '../http/server';
import type { MerchantConsoleService } from '../service';

export interface ListenerState {
  /** Where it answers, or null when off or failed. */
  url: string | null;
  /** The settings it runs with, or null when none runs. */
  inUse: ListenerSettings | null;
  /** Why it is not running although enabled, or null. */
  error: string | null;
}

export function describeListenError(err: unknown, settings: Pick<ListenerSettings, 'host' | 'port'>): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${settings.host}:${settings.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${settings.port} on ${settings.host} is already in use`;
    case 'EACCES':
      return `no permission to listen on ${where} (ports below 1024 need privileges); pick another port`;
    case 'EADDRNOTAVAIL':
      return `${settings.host} is not an address of this machine; pick another host`;
    default:
      return `cannot listen on ${where}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

export interface ListenerControlOptions {
  /** Read at start(): the stored settings (service.services.settings.listener). */
  settings(): ListenerSettings | Promise<ListenerSettings>;
  /** Fastify's logger; off by default (the desktop has no console to read it). */
  logger?: boolean | { level: string };
}

export function createListenerControl(service: MerchantConsoleService, options: ListenerControlOptions) {
  let running: RunningListener | null = null;
  let state: ListenerState = { url: null, inUse: null, error: null };

  /** Starts per the settings; resolves with the outcome, never rejects. */
  async function start(): Promise<ListenerState> {
    if (running) return { ...state };
    const settings = await options.settings();
    if (!settings.enabled) {
      state = { url: null, inUse: null, error: null };
      return { ...state };
    }
    try {
      running = await startListener(service, {
        host: settings.host,
        port: settings.port,
        basePath: settings.base_path,
        logger: options.logger ?? false,
        // The desktop's console is its window (IPC). The browser console (/console/, /console-api/) stays a
        // `serve` feature: the desktop has no terminal to hand out login links, so it would be surface for nothing.
        console: false,
      });
      state = { url: running.url, inUse: { ...settings }, error: null };
    } catch (err) {
      running = null;
      state = { url: null, inUse: null, error: describeListenError(err, settings) };
    }
    return { ...state };
  }

  /** Stops accepting, lets in-flight requests finish, then resolves. */
  async function close(): Promise<void> {
    const current = running;
    running = null;
    state = { url: null, inUse: null, error: state.error };
    if (current) await current.close();
  }

  /**
   * Applies the stored settings now: the old listener drains and closes, a
   * new one starts (or reports why it cannot). The desktop console talks
   * over IPC, so this never cuts the console off.
   */
  async function restart(): Promise<ListenerState> {
    await close();
    state = { url: null, inUse: null, error: null };
    return start();
  }

  return { state: (): ListenerState => ({ ...state }), start, restart, close };
}
export type ListenerControl = ReturnType<typeof createListenerControl>;
