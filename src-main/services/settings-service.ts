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
import type { ServiceContext } from './context';

const LISTENER_KEY = 'listener';

export const DEFAULT_LISTENER_SETTINGS: ListenerSettings = {
  enabled: true,
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  base_path: DEFAULT_BASE_PATH,
};

export function createSettingsService(ctx: ServiceContext) {
  const { repos } = ctx;

  /** Stored values over the defaults; a stored value that no longer parses is ignored. */
  function listener(): ListenerSettings {
    const stored = repos.settings.get<unknown>(LISTENER_KEY);
    const merged = { ...DEFAULT_LISTENER_SETTINGS, ...(typeof stored === 'object' && stored !== null ? stored : {}) };
    const parsed = listenerSettingsView.safeParse(merged);
    return parsed.success && listenerSettingsInput.safeParse(parsed.data).success ? parsed.data : { ...DEFAULT_LISTENER_SETTINGS };
  }

  return {
    listener,
    /** Changes what is given; read fresh at every call (the CLI may write while serve runs). */
    updateListener(input: ListenerSettingsInput): ListenerSettings {
      const next: ListenerSettings = { ...listener() };
      if (input.enabled !== undefined) next.enabled = input.enabled;
      if (input.host !== undefined) next.host = input.host;
      if (input.port !== undefined) next.port = input.port;
      if (input.base_path !== undefined) next.base_path = input.base_path;
      repos.settings.set(LISTENER_KEY, next);
      return next;
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
