/**
 * WAL checkpoints on a worker thread. A checkpoint copies committed pages
 * from the WAL back into the database file and fsyncs it: done by SQLite's
 * automatic checkpoint, that work lands inside whichever commit crosses the
 * threshold, on the thread that serves requests (docs/benchmarks.md: about a
 * third of createOrder's commit time at 1,000,000 orders). Here a second
 * connection in a worker runs PASSIVE checkpoints every `intervalMs`, which
 * never block the writer; the service connection's own automatic
 * checkpoint stays on at a higher threshold as a safety net, should the
 * worker stall.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/**
 * Frames the service connection lets the WAL reach before checkpointing
 * itself (~64 MiB). While the store keeps read snapshots it starts the WAL
 * over itself at about the same size, a few frames before (sqlite-store.ts,
 * `restartWal`).
 */
export const SAFETY_NET_FRAMES = 16_384;

// CommonJS, evaluated as the worker's script (no file to ship next to a bundle).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
let checkpoints = 0;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    checkpoints++;
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.postMessage({ stopped: true, checkpoints });
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker after its current checkpoint; resolves with how many it ran. */
  stop(): Promise<number>;
}

export function startCheckpointer(
  db: Database,
  options: { intervalMs?: number; nativeBinding?: string; onError?: (message: string) => void } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { module: require.resolve('better-sqlite3'), file: db.name, intervalMs: options.intervalMs ?? 200, nativeBinding: options.nativeBinding },
  });
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${SAFETY_NET_FRAMES}`);
  let stopped: Promise<number> | undefined;
  worker.on('message', (m: { error?: string }) => {
    if (m.error) options.onError?.(m.error);
  });
  worker.on('error', (err) => options.onError?.(err.message));
  return {
    stop() {
      stopped ??= new Promise<number>((resolve) => {
        worker.on('message', (m: { stopped?: boolean; checkpoints?: number }) => {
          if (m.stopped) resolve(m.checkpoints ?? 0);
        });
        worker.once('exit', () => resolve(0));
        worker.postMessage('stop');
      }).finally(() => {
        // Back to SQLite's default on this connection (its close checkpoints anyway).
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      });
      return stopped;
    },
  };
}
