/**
 * WAL checkpoints on a worker thread. A checkpoint copies committed pages
 * from the WAL back into the database file and fsyncs it: done by SQLite's
 * automatic checkpoint, that work lands inside whichever commit crosses the
 * threshold, on the thread that serves requests (docs/benchmarks.md: about a
 * third of createOrder's commit time at 1,000,000 orders). Here a second
 * connection in a worker runs PASSIVE checkpoints every `intervalMs`, which
 * never block the writer; the service connection's own automatic
 * checkpoint stays on at a higher threshold as a safety net, should the
 * worker stall. SQLite starts the WAL over (a new header, which it
 * fsyncs, then frames from its start) at the first write after a
 * checkpoint that copied every frame. For the store's writer that write is
 * a commit on the event loop, so the worker makes it instead
 * (`startOverWhenCaughtUp`): after each timed checkpoint that catches up,
 * and when the store asks (`startWalOver`, sqlite-store.ts `restartWal`);
 * a read mark it holds keeps the store's commits from doing it in between.
 * The header's fsync and the cut back to journal_size_limit happen on the
 * worker's thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/**
 * Frames the service connection lets the WAL reach before checkpointing
 * itself, on the event loop (~256 MiB). The store has the worker start the
 * WAL over at 64 MiB (sqlite-store.ts, `restartWal`): this is only for a
 * worker that has stalled.
 */
export const SAFETY_NET_FRAMES = 65_536;

// CommonJS, evaluated as the worker's script (no file to ship next to a bundle).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
// The write lock is taken only when free (startOverNow): a busy store's writer is not waited for.
db.pragma('busy_timeout = 0');
// Its one write (startOver) changes nothing: only the new WAL header is synced, as SQLite must, not the commit.
db.pragma('synchronous = NORMAL');
// No checkpoint inside its own commit (SQLite's default after 1,000 frames): one there could copy back every frame
// after the guard is let go (below), and the store's next commit would start the WAL over.
db.pragma('wal_autocheckpoint = 0');
// The WAL is cut back to the store's limit by the commit that starts it over: this connection's, in startOver.
if (workerData.journalSizeLimit !== undefined) db.pragma('journal_size_limit = ' + Number(workerData.journalSizeLimit));
const readVersion = db.prepare('PRAGMA user_version').pluck();
let checkpoints = 0;
/** The salts of the WAL this connection last started over, while its own frame may be all the WAL holds. */
let ownWal = null;
/** How many frames the WAL holds if every one is now in the database file (PASSIVE reports a partial copy, it does not throw); else -1. */
function checkpoint() {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    checkpoints++;
    return result.busy === 0 && result.log === result.checkpointed ? result.log : -1;
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
    return -1;
  }
}
/** Bytes of the WAL file (https://www.sqlite.org/fileformat2.html#walformat), or null where it ends. */
function readWal(fd, length, position) {
  const bytes = Buffer.alloc(length);
  return fs.readSync(fd, bytes, 0, length, position) === length ? bytes : null;
}
function withWal(read) {
  let fd;
  try {
    fd = fs.openSync(workerData.file + '-wal', 'r');
    return read(fd);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
/** The WAL header's two salts: SQLite writes new ones whenever the WAL starts over. */
function walSalts() {
  return withWal((fd) => readWal(fd, 8, 16)?.toString('hex') ?? null);
}
/**
 * True while the WAL this connection started over holds only its own frame:
 * the second frame is not of this WAL (its salts are not the header's).
 */
function onlyOwnFrame() {
  if (ownWal === null) return false;
  return (
    withWal((fd) => {
      const header = readWal(fd, 32, 0);
      if (header === null || header.toString('hex', 16, 24) !== ownWal) return false;
      const second = readWal(fd, 24, 32 + 24 + header.readUInt32BE(8));
      return second === null || second.toString('hex', 8, 16) !== ownWal;
    }) === true
  );
}
/**
 * With startOverWhenCaughtUp, a second connection of the worker's holds a
 * read mark on the WAL at all times but while the worker writes: SQLite
 * starts the WAL over only at a write that finds every frame copied back
 * and no reader's mark on it, so the store's commits never do (with the
 * new header's fsync on the event loop), the worker's own write does. The
 * mark is taken again at the last frame before every checkpoint, so it
 * holds nothing back for longer than a timer interval.
 */
const guard = workerData.startOverWhenCaughtUp ? new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {}) : null;
const guardRead = guard && guard.prepare('PRAGMA user_version').pluck();
function dropGuard() {
  if (guard && guard.inTransaction) guard.exec('COMMIT');
}
function holdGuard() {
  if (!guard) return;
  try {
    dropGuard();
    guard.exec('BEGIN');
    // The first read takes the mark, at the WAL's last frame now.
    guardRead.get();
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
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
  holdGuard();
  if (checkpoint() < 0) return false;
  return startOverNow();
}
function startOverNow() {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    // The store's writer has the write lock: it is not idle, and the guard's mark, kept as it is, keeps its
    // commit from starting the WAL over (a mark taken now, with every frame copied back, would not).
    if (err && err.code !== 'SQLITE_BUSY') parentPort.postMessage({ error: String((err && err.message) || err) });
    return false;
  }
  let before = null;
  let after = null;
  try {
    // Under the write lock: no other connection writes, so none starts the WAL over, until COMMIT.
    dropGuard();
    before = walSalts();
    db.pragma('user_version = ' + Number(readVersion.get()));
    db.exec('COMMIT');
    after = walSalts();
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
    return false;
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    // After this write the WAL holds a frame not copied back: the new mark is on it.
    holdGuard();
  }
  // No WAL before (none yet, or cut to nothing): any header now is a new one.
  if (after === null || after === before) return false;
  ownWal = after;
  return true;
}
/**
 * The timer's checkpoint. With startOverWhenCaughtUp, one that copied
 * every frame starts the WAL over at once. While the WAL holds only this
 * connection's own frame there is no checkpoint at all (an idle store is
 * left alone).
 */
function onTimer() {
  if (!workerData.startOverWhenCaughtUp) {
    checkpoint();
    return;
  }
  if (onlyOwnFrame()) return;
  holdGuard();
  // frames 0: a store that has not written yet; the WAL made here keeps its first commit from making one.
  if (checkpoint() >= 0) startOverNow();
}
const timer = setInterval(onTimer, workerData.intervalMs);
// No WAL yet (none, or cut to nothing): made here at once, or the store's first commit would make one, header and all.
if (workerData.startOverWhenCaughtUp) setImmediate(() => walSalts() === null && startOverNow());
parentPort.on('message', (message) => {
  if (message && message.now !== undefined) {
    parentPort.postMessage({ done: message.now, ok: message.startOver ? startOver() : checkpoint() >= 0 });
    return;
  }
  if (message !== 'stop') return;
  clearInterval(timer);
  if (guard) guard.close();
  db.close();
  parentPort.postMessage({ stopped: true, checkpoints });
  parentPort.close();
});
`;

export interface Checkpointer {
  /**
   * A checkpoint at once, on the worker: resolves true once it has copied
   * every frame of the WAL into the database file, false if it could not
   * (a reader's snapshot held some back), failed (told to onError too), the
   * worker is gone, or nothing came back within timeoutMs (a stalled disk).
   * Never rejects.
   */
  checkpointNow(timeoutMs: number): Promise<boolean>;
  /**
   * checkpointNow, then a write of the worker's own that starts the WAL
   * over (its new header written and synced on the worker, the file cut
   * back to `journalSizeLimit`): resolves true once the WAL has a new
   * header, false as checkpointNow does or if SQLite did not start it over
   * (a reader's mark on the WAL, the write lock taken). Never rejects.
   */
  startWalOver(timeoutMs: number): Promise<boolean>;
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
    /** The store's journal_size_limit: the worker's commit that starts the WAL over cuts it back to this. */
    journalSizeLimit?: number;
    /** A timed checkpoint that catches up starts the WAL over on the worker too (the store's; see onTimer in the worker). */
    startOverWhenCaughtUp?: boolean;
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
      startOverWhenCaughtUp: options.startOverWhenCaughtUp === true,
    },
  });
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${SAFETY_NET_FRAMES}`);
  let stopped: Promise<number> | undefined;
  /** checkpointNow calls waiting for their checkpoint, by number. */
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
  const ask = (timeoutMs: number, startOver: boolean): Promise<boolean> => {
    if (stopped || exited) return Promise.resolve(false);
    const id = ++asked;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => answer(id, false), timeoutMs);
      waiting.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
      worker.postMessage({ now: id, startOver });
    });
  };
  return {
    get running() {
      return !exited && !stopped;
    },
    checkpointNow: (timeoutMs) => ask(timeoutMs, false),
    startWalOver: (timeoutMs) => ask(timeoutMs, true),
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
