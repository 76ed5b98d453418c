/**
 * WAL checkpoints on a worker thread. A checkpoint copies committed pages
 * from the WAL back into the database file and fsyncs it: done by SQLite's
 * automatic checkpoint, that work lands inside whichever commit crosses the
 * threshold, on the thread that serves requests (docs/benchmarks.md: about a
 * third of createOrder's commit time at 1,000,000 orders). Here a second
 * connection in a worker runs PASSIVE checkpoints `intervalMs` after its
 * last one, which never block the writer; the service connection's own automatic
 * checkpoint stays on at a higher threshold as a safety net, should the
 * worker stall. When the WAL is to start over (sqlite-store.ts,
 * `restartWal`), the store has the worker catch up (`catchUp`, while the
 * writer goes on), then checkpoint at once and start it over itself
 * (`startWalOver`), so the new WAL header's fsync and the cut back to
 * journal_size_limit happen on the worker's thread too. For the store the
 * worker also keeps a read mark on the WAL (`ownsWalRestarts`), so that no
 * commit of the store's starts the WAL over after a timed checkpoint that
 * copied every frame: those restarts, and their header's fsync, were the
 * last fsync on the event loop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/**
 * Frames the service connection lets the WAL reach before checkpointing
 * itself, on the event loop (~256 MiB). The store has the worker start the
 * WAL over at 128 MiB (sqlite-store.ts, `restartWal`): this is only for a
 * worker that has stalled (it copies up to the worker's mark; the WAL
 * starts over once the worker is back, or gone with its mark).
 */
export const SAFETY_NET_FRAMES = 65_536;

// CommonJS, evaluated as the worker's script (no file to ship next to a bundle).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.module);
const open = () => new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
const db = open();
db.pragma('busy_timeout = 1000');
// The WAL is cut back to the store's limit by the commit that starts it over: this connection's, in startOver.
if (workerData.journalSizeLimit !== undefined) db.pragma('journal_size_limit = ' + Number(workerData.journalSizeLimit));
const readVersion = db.prepare('PRAGMA user_version').pluck();
// ownsWalRestarts: a read transaction of a second connection, kept open, holds a mark on the WAL so that no
// other connection's commit starts it over (SQLite does so only while no reader holds one); see markWal.
const marker = workerData.ownsWalRestarts ? open() : null;
if (marker) marker.pragma('busy_timeout = 1000');
const markerRead = marker ? marker.prepare('PRAGMA user_version').pluck() : null;
/**
 * True while the WAL holds frames no checkpoint has copied back. Only then does a new read transaction
 * take a mark on the WAL (on a WAL copied back entirely, SQLite reads the database file and takes none),
 * and only then may the marker let go of its mark for a moment: no commit starts the WAL over while a
 * frame is left to copy, and only this worker copies frames (the writer's own automatic checkpoint is
 * the safety net for a worker that has stalled).
 */
let behind = false;
let checkpoints = 0;
function report(err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}
/** The marker's mark moved up to the WAL's last frame, while that is safe (behind). */
function markWal() {
  if (!marker || !behind) return;
  try {
    if (marker.inTransaction) marker.exec('COMMIT');
    marker.exec('BEGIN');
    markerRead.get();
  } catch (err) {
    report(err);
  }
}
function unmarkWal() {
  try {
    if (marker && marker.inTransaction) marker.exec('COMMIT');
  } catch (err) {
    report(err);
  }
}
/**
 * True when every frame the WAL had as it began is in the database file now (PASSIVE reports a partial
 * copy, it does not throw). With the marker, it copies frames up to the marker's mark, moved up to the
 * last frame first, and the mark stays on: a checkpoint that copied every frame would otherwise leave the
 * WAL to start over at the next commit, whichever connection makes it.
 */
function checkpoint() {
  markWal();
  return copyBack();
}
/** A PASSIVE checkpoint as the WAL's marks allow it; the next timed one comes intervalMs after it (armTimer). */
function copyBack() {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    checkpoints++;
    const copiedAll = result.busy === 0 && result.log === result.checkpointed;
    // What it reports is the WAL as it began: frames committed meanwhile are left. Asked again, with the
    // mark where this one stopped, SQLite copies nothing (no fsync) and tells the WAL's last frame now.
    if (marker) {
      const [now] = db.pragma('wal_checkpoint(PASSIVE)');
      behind = now.busy === 0 && now.log > now.checkpointed;
    }
    return copiedAll;
  } catch (err) {
    report(err);
    return false;
  } finally {
    armTimer();
  }
}
/** The WAL header's two salts: SQLite writes new ones whenever the WAL starts over. */
function walSalts() {
  let fd;
  try {
    fd = fs.openSync(workerData.file + '-wal', 'r');
    const salts = Buffer.alloc(8);
    return fs.readSync(fd, salts, 0, 8, 16) === 8 ? salts.toString('hex') : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
/**
 * A checkpoint that copies every frame back, then a write of this
 * connection's own: SQLite starts the WAL over at the first write after such
 * a checkpoint, whichever connection makes it, writing and syncing its new
 * header here instead of on the store's thread. The write is page 1 with
 * user_version set to what it is (a change of nothing; read and written in
 * one transaction, under the write lock). True only if the header is new;
 * false if the checkpoint could not copy everything, the write lock was
 * taken, or a reader's mark on the WAL kept SQLite from starting it over.
 */
function startOver() {
  // The store holds its commits until the answer: the marker lets go, or SQLite would not start the WAL over.
  unmarkWal();
  try {
    return copyBack() && writeOwnFrame();
  } finally {
    // Before the store's next commit: the mark back on.
    markWal();
  }
}
/** startOver's write; true if the WAL has a new header after it (none before: an empty WAL, whose first header it wrote). */
function writeOwnFrame() {
  const before = walSalts();
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.pragma('user_version = ' + Number(readVersion.get()));
      db.exec('COMMIT');
      // This write's frame is left to copy, whether or not it started the WAL over.
      behind = true;
    } finally {
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  } catch (err) {
    report(err);
    return false;
  }
  const after = walSalts();
  return after !== null && after !== before;
}
/**
 * A timed checkpoint comes intervalMs after the last checkpoint of any kind ended, not on a fixed beat:
 * right after a catchUp the store asks for startOver and holds its next batch until the answer, and a
 * timed checkpoint that began in between held it for its own fsyncs too (206 ms on a slow disk;
 * docs/benchmarks.md, "Small hours of 2026-12-01" and "Early morning on 2026-12-01").
 */
let timer;
function armTimer() {
  clearTimeout(timer);
  timer = setTimeout(checkpoint, workerData.intervalMs);
}
armTimer();
parentPort.on('message', (message) => {
  if (message && message.now !== undefined) {
    parentPort.postMessage({ done: message.now, ok: startOver() });
    return;
  }
  if (message && message.catchUp !== undefined) {
    parentPort.postMessage({ done: message.catchUp, ok: checkpoint() });
    return;
  }
  if (message !== 'stop') return;
  clearTimeout(timer);
  if (marker) marker.close();
  db.close();
  parentPort.postMessage({ stopped: true, checkpoints });
  parentPort.close();
});
`;

export interface Checkpointer {
  /**
   * A checkpoint at once on the worker, then a write of its own that
   * starts the WAL over (its new header written and synced on the worker,
   * the file cut back to `journalSizeLimit`): resolves true once the WAL
   * has a new header; false if the checkpoint could not copy every frame
   * (a reader's snapshot held some back), failed (told to onError too),
   * SQLite did not start the WAL over (a reader's mark on it, the write
   * lock taken), the worker is gone, or nothing came back within timeoutMs
   * (a stalled disk). Never rejects.
   */
  startWalOver(timeoutMs: number): Promise<boolean>;
  /**
   * A checkpoint at once on the worker, nothing more (the writer goes on
   * committing meanwhile): resolves true if it copied every frame there was
   * when it began; false as startWalOver does. Never rejects.
   */
  catchUp(timeoutMs: number): Promise<boolean>;
  /** False once stopped, or once the worker has exited on its own (then the connection's automatic checkpoint is back at SQLite's default). */
  readonly running: boolean;
  /** Stops the worker after its current checkpoint; resolves with how many it ran. */
  stop(): Promise<number>;
}

export function startCheckpointer(
  db: Database,
  options: {
    intervalMs?: number;
    nativeBinding?: string;
    journalSizeLimit?: number;
    /**
     * Only the worker starts the WAL over (startWalOver): a read mark of its own keeps every other
     * connection's commit from doing so, with its header's fsync, after a checkpoint that copied every
     * frame. For a caller that asks for startWalOver as the WAL grows (the store); without it the WAL
     * would grow without end.
     */
    ownsWalRestarts?: boolean;
    onError?: (message: string) => void;
  } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: require.resolve('better-sqlite3'),
      file: db.name,
      intervalMs: options.intervalMs ?? 200,
      nativeBinding: options.nativeBinding,
      journalSizeLimit: options.journalSizeLimit,
      ownsWalRestarts: options.ownsWalRestarts === true,
    },
  });
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${SAFETY_NET_FRAMES}`);
  let stopped: Promise<number> | undefined;
  /** startWalOver calls waiting for their answer, by number. */
  const waiting = new Map<number, (ok: boolean) => void>();
  let asked = 0;
  const answer = (id: number, ok: boolean) => {
    waiting.get(id)?.(ok);
    waiting.delete(id);
  };
  worker.on('message', (m: { error?: string; done?: number; ok?: boolean }) => {
    if (m.error) options.onError?.(m.error);
    if (m.done !== undefined) answer(m.done, m.ok === true);
  });
  worker.on('error', (err) => options.onError?.(err.message));
  let exited = false;
  worker.once('exit', () => {
    exited = true;
    [...waiting.keys()].forEach((id) => answer(id, false));
    // Gone without stop() (it failed): the connection checkpoints itself again, as without a worker.
    if (!stopped && db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  const ask = (kind: 'now' | 'catchUp', timeoutMs: number): Promise<boolean> => {
    if (stopped || exited) return Promise.resolve(false);
    const id = ++asked;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => answer(id, false), timeoutMs);
      waiting.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
      worker.postMessage({ [kind]: id });
    });
  };
  return {
    get running() {
      return !exited && !stopped;
    },
    startWalOver: (timeoutMs) => ask('now', timeoutMs),
    catchUp: (timeoutMs) => ask('catchUp', timeoutMs),
    stop() {
      stopped ??= new Promise<number>((resolve) => {
        // Gone already: no answer and no exit is coming.
        if (exited) return resolve(0);
        worker.on('message', (m: { stopped?: boolean; checkpoints?: number }) => {
          if (m.stopped) resolve(m.checkpoints ?? 0);
        });
        worker.once('exit', () => resolve(0));
        worker.postMessage('stop');
      }).finally(() => {
        [...waiting.keys()].forEach((id) => answer(id, false));
        // Back to SQLite's default on this connection (its close checkpoints anyway).
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      });
      return stopped;
    },
  };
}
