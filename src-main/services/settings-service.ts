/**
 * Service settings kept in the `settings` table. The listener settings are
 * written by the console (operator) and read at start-up by `serve` and the
 * desktop shell: a change applies at the next start, never to a running
 * listener (the console would otherwise cut the branch it sits on).
 */
import { DEFAULT_BASE_PATH, DEFAULT_HOST, DEFAULT_PORT } from '../../src-shared/constants';
import {
  listenerSettingsInput,
  listenerSettingsView,
  type ListenerSettings,
  type ListenerSettingsInput,
} from '../../src-shared/schemas/console';
import os from 'node:os';
import type { CallbackUrlPolicy, ListenerEndpoint } from '../callbacks/callback-url-policy';
import type { SettingsRepository } from '../repositories/settings-repository';
import type { ReadTx, WriteTx } from '../store/store';

const LISTENER_KEY = 'listener';
const CALLBACKS_KEY = 'callbacks';

/** Where merchant callbacks may go (docs/callbacks.md): loopback and private addresses only when allowed. */
export interface CallbackSettings {
  allow_private: boolean;
}

export const DEFAULT_LISTENER_SETTINGS: ListenerSettings = {
  enabled: true,
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  base_path: DEFAULT_BASE_PATH,
};

/** Stored values over the defaults; a stored value that no longer parses is ignored. */
async function storedListenerSettings(tx: ReadTx, settings: SettingsRepository): Promise<ListenerSettings> {
  const stored = await settings.get<unknown>(tx, LISTENER_KEY);
  const merged = { ...DEFAULT_LISTENER_SETTINGS, ...(typeof stored === 'object' && stored !== null ? stored : {}) };
  const parsed = listenerSettingsView.safeParse(merged);
  return parsed.success && listenerSettingsInput.safeParse(parsed.data).success ? parsed.data : { ...DEFAULT_LISTENER_SETTINGS };
}

/** Private addresses refused unless stored as allowed. */
async function storedCallbackSettings(tx: ReadTx, settings: SettingsRepository): Promise<CallbackSettings> {
  const stored = await settings.get<unknown>(tx, CALLBACKS_KEY);
  return { allow_private: typeof stored === 'object' && stored !== null && (stored as { allow_private?: unknown }).allow_private === true };
}

/**
 * The callback URL policy in force, read fresh (the CLI may change the setting while serve runs): the setting,
 * where this service listens (`running`: this process's listener and public URL, or those of the service running
 * on the data dir; and the stored listener settings), and this machine's addresses.
 */
export async function callbackUrlPolicyOf(tx: ReadTx, settings: SettingsRepository, running: readonly ListenerEndpoint[]): Promise<CallbackUrlPolicy> {
  const { host, port } = await storedListenerSettings(tx, settings);
  return {
    allowPrivate: (await storedCallbackSettings(tx, settings)).allow_private,
    ownListeners: [...running, { host, port }],
    localAddresses: Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
  };
}

/** Every method runs in the caller's unit of work (tx). */
export function createSettingsService({ settings }: { settings: SettingsRepository }) {
  const listener = (tx: ReadTx) => storedListenerSettings(tx, settings);

  return {
    listener,
    callbacks: (tx: ReadTx): Promise<CallbackSettings> => storedCallbackSettings(tx, settings),
    async updateCallbacks(tx: WriteTx, input: CallbackSettings): Promise<CallbackSettings> {
      await settings.set(tx, CALLBACKS_KEY, { allow_private: input.allow_private });
      return storedCallbackSettings(tx, settings);
    },
    /** Changes what is given; read fresh at every call (the CLI may write while serve runs). */
    async updateListener(tx: WriteTx, input: ListenerSettingsInput): Promise<ListenerSettings> {
      const next: ListenerSettings = { ...(await listener(tx)) };
      if (input.enabled !== undefined) next.enabled = input.enabled;
      if (input.host !== undefined) next.host = input.host;
      if (input.port !== undefined) next.port = input.port;
      if (input.base_path !== undefined) next.base_path = input.base_path;
      await settings.set(tx, LISTENER_KEY, next);
      return next;
    },
    /** Any stored setting (JSON), e.g. rate limits. */
    get: <T>(tx: ReadTx, key: string) => settings.get<T>(tx, key),
    set: (tx: WriteTx, key: string, value: unknown) => settings.set(tx, key, value),
    remove: (tx: WriteTx, key: string) => settings.remove(tx, key),
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
