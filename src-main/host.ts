/**
 * What runs around an open service, the same for `serve` and the desktop
 * app: its background work (expiry, payouts, settlement, callbacks,
 * housekeeping) and, on SQLite, the WAL checkpointer; and the one order in
 * which a host is taken down — listener first (no new requests), then the
 * background work, the checkpointer, the store and the data-dir lock. Each
 * step runs even when an earlier one failed.
 */
import { startBackgroundWork, type BackgroundWork, type BackgroundWorkOptions } from './background/background-work';
import type { MerchantConsoleService } from './service';
import type { DataDirLock } from './store/data-dir';
import type { Checkpointer } from './store/sqlite/checkpointer';
import type { SqliteStore } from './store/sqlite/sqlite-store';

export interface HostRuntime {
  background: BackgroundWork;
  checkpointer: Checkpointer | null;
}

export interface HostRuntimeOptions {
  onError(source: 'background work' | 'checkpoint', message: string): void;
  /** Tests replace the pieces. */
  startBackgroundWork?(service: MerchantConsoleService, options: BackgroundWorkOptions): BackgroundWork;
  startCheckpointer?(store: SqliteStore, options: { onError: (message: string) => void }): Checkpointer;
}

/**
 * Starts the work a running host does besides answering requests (call it
 * once the listener is up). On SQLite the host holds the data dir's lock, so
 * claims left by a process that died are taken back first.
 */
export async function startHostRuntime(service: MerchantConsoleService, options: HostRuntimeOptions): Promise<HostRuntime> {
  await service.work.releaseClaimsOfOthers();
  // Catches up on whatever fell due while nothing ran.
  const background = (options.startBackgroundWork ?? startBackgroundWork)(service, {
    onError: (err) => options.onError('background work', (err as Error)?.message ?? String(err)),
  });
  const store = service.store;
  // SQLite: WAL checkpoints off the request thread (store/sqlite/checkpointer.ts).
  const checkpointer =
    store.dialect === 'sqlite'
      ? (options.startCheckpointer ?? ((s, o) => s.startCheckpointer(o)))(store as SqliteStore, { onError: (m) => options.onError('checkpoint', m) })
      : null;
  return { background, checkpointer };
}

export interface HostParts {
  listener?: { close(): Promise<void> } | null | undefined;
  runtime?: HostRuntime | null | undefined;
  service?: MerchantConsoleService | null | undefined;
  lock?: DataDirLock | null | undefined;
}

/** Takes a host down in order; reports (and survives) a failing step. */
export async function shutdownHost(parts: HostParts, warn: (line: string) => void): Promise<void> {
  const step = async (what: string, fn: () => Promise<unknown> | unknown) => {
    try {
      await fn();
    } catch (err) {
      warn(`error while ${what}: ${(err as Error)?.message ?? String(err)}`);
    }
  };
  if (parts.listener) await step('closing the listener', () => parts.listener!.close());
  if (parts.runtime) {
    await step('stopping background work', () => parts.runtime!.background.stop());
    if (parts.runtime.checkpointer) await step('stopping the checkpointer', () => parts.runtime!.checkpointer!.stop());
  }
  if (parts.service) await step('closing the store', () => parts.service!.close());
  if (parts.lock) await step('releasing the data dir', () => parts.lock!.release());
}
