/**
 * A running host of the service, the same for `serve` and the desktop app:
 * the one order in which it starts — the data dir's lock, the service, the
 * listener, then the work besides requests (expiry, payouts, settlement,
 * callbacks, housekeeping and, on SQLite, the WAL checkpointer) — and the
 * one order in which it is taken down: listener first (no new requests),
 * then the background work, the checkpointer, the store and the lock. A step
 * that fails at start takes down what was started before it; at shutdown
 * each step runs even when an earlier one failed.
 */
import { startBackgroundWork, type BackgroundWork, type BackgroundWorkOptions } from './background/background-work';
import { applyHostHeapPolicy } from './heap-policy';
import type { MerchantConsoleService } from './service';
import type { DataDirLock } from './store/data-dir';
import type { Checkpointer } from './store/sqlite/checkpointer';
import type { SqliteStore } from './store/sqlite/sqlite-store';

export interface HostRuntime {
  background: BackgroundWork;
  checkpointer: Pick<Checkpointer, 'stop'> | null;
}

export interface HostRuntimeOptions {
  onError(source: 'background work' | 'checkpoint', message: string): void;
  /** Tests replace the pieces. */
  startBackgroundWork?(service: MerchantConsoleService, options: BackgroundWorkOptions): BackgroundWork;
  startCheckpointer?(store: SqliteStore, options: { onError: (message: string) => void }): Pick<Checkpointer, 'stop'>;
}

/** What the host's listener step started: the listener (null: none runs) and where it is reached, for the lock's description. */
export interface HostListening {
  listener: { close(): Promise<void> } | null;
  url: string | null;
  /** Where browsers reach it behind a proxy. */
  publicUrl?: string | null;
}

export interface HostStart<L extends HostListening> {
  /** One service per SQLite data dir: its lock, taken before the store opens; null where there is none (PostgreSQL). */
  lock(): DataDirLock | null;
  openService(): Promise<MerchantConsoleService>;
  /** Whatever the host does with the open service before it answers requests, then its listener. */
  listen(service: MerchantConsoleService): Promise<L>;
  runtime: HostRuntimeOptions;
  /** Reports a step that failed while the host was taken down. */
  warn(line: string): void;
}

export interface Host<L extends HostListening> {
  lock: DataDirLock | null;
  service: MerchantConsoleService;
  listening: L;
  runtime: HostRuntime;
  /** Takes the host down in order; a second call waits for the first. */
  stop(): Promise<void>;
}

/** Starts a host step by step (see above); when a step fails, what started before it is taken down and the error thrown. */
export async function startHost<L extends HostListening>(start: HostStart<L>): Promise<Host<L>> {
  const parts: HostParts = {};
  applyHostHeapPolicy();
  try {
    const lock = (parts.lock = start.lock());
    const service = (parts.service = await start.openService());
    const listening = await start.listen(service);
    parts.listener = listening.listener;
    lock?.describe({ url: listening.url, publicUrl: listening.publicUrl ?? null });
    // After the listener is up: catches up on whatever fell due while nothing ran.
    const runtime = (parts.runtime = await startHostRuntime(service, start.runtime));
    let stopping: Promise<void> | undefined;
    return { lock, service, listening, runtime, stop: () => (stopping ??= shutdownHost(parts, start.warn)) };
  } catch (err) {
    await shutdownHost(parts, start.warn);
    throw err;
  }
}

/**
 * Starts the work a running host does besides answering requests. On SQLite
 * the host holds the data dir's lock, so claims left by a process that died
 * are taken back first.
 */
async function startHostRuntime(service: MerchantConsoleService, options: HostRuntimeOptions): Promise<HostRuntime> {
  await service.work.releaseClaimsOfOthers();
  const background = (options.startBackgroundWork ?? startBackgroundWork)(service, {
    onError: (err) => options.onError('background work', (err as Error)?.message ?? String(err)),
  });
  const store = service.store;
  // SQLite: WAL checkpoints off the request thread (store/sqlite/checkpointer.ts).
  try {
    const checkpointer =
      store.dialect === 'sqlite'
        ? (options.startCheckpointer ?? ((s, o) => s.startCheckpointer(o)))(store as SqliteStore, { onError: (m) => options.onError('checkpoint', m) })
        : null;
    return { background, checkpointer };
  } catch (err) {
    await background.stop();
    throw err;
  }
}

interface HostParts {
  listener?: { close(): Promise<void> } | null | undefined;
  runtime?: HostRuntime | null | undefined;
  service?: MerchantConsoleService | null | undefined;
  lock?: DataDirLock | null | undefined;
}

/** Takes a host down in order; reports (and survives) a failing step. */
async function shutdownHost(parts: HostParts, warn: (line: string) => void): Promise<void> {
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
