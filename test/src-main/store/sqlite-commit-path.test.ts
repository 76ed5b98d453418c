/**
 * The SQLite engine's commit path (docs/decisions.md, "The commit's fsync
 * off the event loop"): a batch is committed with synchronous=NORMAL and the
 * WAL is then fdatasync'd off the event loop. Between the commit and the end
 * of that sync the batch is in the file but not yet durable, so nothing may
 * be acknowledged, no afterCommit hook may run, no read unit may see it and
 * no callback may go out; a sync that fails fails the batch and stops the
 * store. The sync is held open (or failed) through the engine's test hook.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, sqliteTestHooks, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import { StoreError, type WriteTx } from '../../../src-main/store/store';
import { allowPrivateCallbacks, seedMerchant, testService, write } from '../../support/service-harness';
import { newBuy } from '../../support/money';
import { startReceiver } from '../../support/callback-receiver';
import { tempDir } from '../../support/temp-dir';

/** The next WAL sync waits until release() (then really syncs), or fails with fail(). */
function holdNextSync() {
  let started!: () => void;
  const syncStarted = new Promise<void>((r) => (started = r));
  let release!: () => void;
  let fail!: (err: Error) => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  let used = false;
  // A failing test must not leave the store waiting for a sync forever.
  releaseAll.push(() => release());
  sqliteTestHooks.syncWal = async (sync) => {
    if (used) return sync();
    used = true;
    started();
    await gate;
    return sync();
  };
  return { syncStarted, release: () => release(), fail: (err: Error) => fail(err) };
}

/** Every WAL sync waits for its own release() or fail(), in the order they start. */
function holdEverySync() {
  const holds: { release: () => void; fail: (err: Error) => void }[] = [];
  let notify: (() => void) | null = null;
  sqliteTestHooks.syncWal = async (sync) => {
    let release!: () => void;
    let fail!: (err: Error) => void;
    const gate = new Promise<void>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
    releaseAll.push(release);
    holds.push({ release, fail });
    notify?.();
    await gate;
    await sync();
  };
  const started = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (holds.length >= n ? resolve() : (notify = check));
      check();
    });
  return { holds, started };
}

/** The error a failed fdatasync gives. */
const fsyncFailure = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

/**
 * Errors thrown on the event loop while `fn` runs, caught instead of
 * failing the run (Vitest reports uncaught errors); the listeners before are
 * put back afterwards.
 */
async function catchingUncaught(fn: (thrown: unknown[]) => Promise<void>): Promise<void> {
  const thrown: unknown[] = [];
  const onUncaught = (err: unknown) => thrown.push(err);
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', onUncaught);
  try {
    await fn(thrown);
  } finally {
    process.off('uncaughtException', onUncaught);
    for (const l of listeners) process.on('uncaughtException', l);
  }
}

/** A unit whose error made SQLite abandon the whole transaction (as SQLITE_FULL or an I/O error can). */
async function diskFullUnit(tx: WriteTx): Promise<never> {
  await (tx as WriteTx & { exec(sql: string): Promise<void> }).exec('ROLLBACK');
  throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
}

const releaseAll: (() => void)[] = [];
afterEach(() => {
  sqliteTestHooks.syncWal = undefined;
  for (const release of releaseAll.splice(0)) release();
});

/** Closes a store after letting any held sync go (a failing test must not hang in close). */
async function closeStore(store: SqliteStore): Promise<void> {
  for (const release of releaseAll.splice(0)) release();
  await store.close();
}

/** Lets timers, I/O and pending microtasks run a few times. */
const settle = () => new Promise((r) => setTimeout(r, 30));

function settledState<T>(p: Promise<T>): { settled: boolean } {
  const state = { settled: false };
  p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

async function openTestStore(options: { onFatal?: (err: StoreError) => void; yieldAfterMs?: number } = {}): Promise<{ store: SqliteStore; file: string }> {
  const file = path.join(tempDir(), 'db.sqlite');
  const store = await openSqliteStore({ file, ...options });
  await store.write((tx) => (tx as WriteTx & { exec(sql: string): Promise<void> }).run('CREATE TABLE t (v INTEGER UNIQUE)'));
  return { store, file };
}

const insert = (tx: WriteTx, v: number) => tx.run('INSERT INTO t (v) VALUES (?)', [v]);
const rows = (store: SqliteStore) => store.read(async (tx) => (await tx.all<{ v: number }>('SELECT v FROM t ORDER BY v')).map((r) => r.v));

/** What another connection finds in the file (committed, durable or not). */
function inFile(file: string): number[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare('SELECT v FROM t ORDER BY v').all() as { v: number }[]).map((r) => r.v);
  } finally {
    db.close();
  }
}

describe('SQLite commit path: nothing before the WAL sync', () => {
  it('acknowledges no unit, runs no afterCommit hook, shows no read the rows and commits no next batch until the sync is done', async () => {
    const { store, file } = await openTestStore();
    try {
      const held = holdNextSync();
      const hooks: string[] = [];
      const first = store.write(async (tx) => {
        await insert(tx, 1);
        tx.afterCommit(() => hooks.push('first'));
        return 'one';
      });
      const firstState = settledState(first);
      await held.syncStarted;
      // The batch is committed: another connection of the file sees the row already…
      expect(inFile(file)).toEqual([1]);
      // …but nothing of this store has let it out.
      const readDuring = rows(store);
      const readState = settledState(readDuring);
      let secondSaw: number[] | undefined;
      const second = store.write(async (tx) => {
        await insert(tx, 2);
        tx.afterCommit(() => hooks.push('second'));
        secondSaw = (await tx.all<{ v: number }>('SELECT v FROM t ORDER BY v')).map((r) => r.v);
        return secondSaw;
      });
      const secondState = settledState(second);
      await settle();
      expect(firstState.settled).toBe(false);
      expect(hooks).toEqual([]);
      expect(readState.settled).toBe(false);
      // The next batch runs its units meanwhile (on the writer, which sees the first batch's row)…
      expect(secondSaw).toEqual([1, 2]);
      // …but it is not committed, not answered and its hook has not run.
      expect(inFile(file)).toEqual([1]);
      expect(secondState.settled).toBe(false);

      held.release();
      expect(await first).toBe('one');
      // The read took its snapshot after the sync: it sees the first batch (not necessarily the second).
      expect(await readDuring).toContain(1);
      expect(await second).toEqual([1, 2]);
      // Batches are acknowledged in the order they commit.
      expect(hooks).toEqual(['first', 'second']);
      expect(inFile(file)).toEqual([1, 2]);
      expect(await rows(store)).toEqual([1, 2]);
    } finally {
      await closeStore(store);
    }
  });

  it('the next batch commits only after the one before is durable and answered, and its own sync comes before its answers', async () => {
    const { store, file } = await openTestStore();
    try {
      const events: string[] = [];
      // Every sync is held until released, in order.
      const holds: { release: () => void }[] = [];
      let startedNext!: () => void;
      let nextStarted = new Promise<void>((r) => (startedNext = r));
      sqliteTestHooks.syncWal = async (sync) => {
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        releaseAll.push(release);
        holds.push({ release });
        events.push(`sync ${holds.length} started: ${inFile(file).join(',')}`);
        startedNext();
        await gate;
        await sync();
        events.push(`sync ${holds.length} done`);
      };
      const first = store.write((tx) => insert(tx, 1)).then(() => events.push('first answered'));
      await nextStarted;
      nextStarted = new Promise<void>((r) => (startedNext = r));
      const second = store.write((tx) => insert(tx, 2)).then(() => events.push('second answered'));
      await settle();
      // Only the first batch's sync has started, and the second batch is not in the file.
      expect(holds).toHaveLength(1);
      expect(inFile(file)).toEqual([1]);
      holds[0]!.release();
      await first;
      await nextStarted;
      expect(events).toEqual(['sync 1 started: 1', 'sync 1 done', 'first answered', 'sync 2 started: 1,2']);
      holds[1]!.release();
      await second;
      expect(events.slice(-2)).toEqual(['sync 2 done', 'second answered']);
    } finally {
      await closeStore(store);
    }
  });

  it('a read unit takes its snapshot when it starts: one started before the commit never sees the batch, even if its first statement runs during the sync', async () => {
    const { store } = await openTestStore();
    try {
      await store.write((tx) => insert(tx, 1));
      const held = holdNextSync();
      let letReadGo!: () => void;
      const readMayGo = new Promise<void>((r) => (letReadGo = r));
      const early = store.read(async (tx) => {
        await readMayGo;
        return (await tx.all<{ v: number }>('SELECT v FROM t')).map((r) => r.v);
      });
      const w = store.write((tx) => insert(tx, 2));
      await held.syncStarted;
      letReadGo();
      expect(await early).toEqual([1]);
      held.release();
      await w;
    } finally {
      await closeStore(store);
    }
  });

  it('a failed sync fails every unit of the batch, runs none of its hooks, refuses every later unit and reports once', async () => {
    const fatal: StoreError[] = [];
    const { store, file } = await openTestStore({ onFatal: (err) => fatal.push(err) });
    try {
      const held = holdNextSync();
      const hooks: string[] = [];
      const batch = [1, 2].map((v) =>
        store.write(async (tx) => {
          await insert(tx, v);
          tx.afterCommit(() => hooks.push(String(v)));
        }),
      );
      await held.syncStarted;
      const readDuring = rows(store);
      let queuedRan = false;
      const queued = store.write(async (tx) => {
        queuedRan = true;
        await insert(tx, 3);
      });
      await settle();
      // The next batch ran meanwhile; it must not outlive the failed sync.
      expect(queuedRan).toBe(true);
      held.fail(fsyncFailure());
      for (const p of [...batch, queued, readDuring]) {
        const err = await p.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreError);
        expect(err).toMatchObject({ kind: 'storage', code: 'SQLITE_IOERR_FSYNC' });
      }
      expect(hooks).toEqual([]);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.message).toMatch(/could not be flushed to disk.*restart/);
      await expect(store.write((tx) => insert(tx, 4))).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      await expect(rows(store)).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      expect(fatal).toHaveLength(1);
      // The batch that ran during the failed sync was rolled back: the file has the failed batch (committed,
      // its durability unknown) and nothing after it.
      expect(inFile(file)).toEqual([1, 2]);
    } finally {
      await closeStore(store);
    }
  });

  it('a next batch whose units end only after the failed sync was handled is rolled back, not committed on top of it', async () => {
    const fatal: StoreError[] = [];
    const { store, file } = await openTestStore({ onFatal: (err) => fatal.push(err) });
    try {
      const held = holdNextSync();
      const first = store.write((tx) => insert(tx, 1));
      await held.syncStarted;
      // A unit of the next batch still running when the failure is handled (a test stand-in for a long unit).
      let finishUnit!: () => void;
      const unitMayFinish = new Promise<void>((r) => (finishUnit = r));
      let unitStarted!: () => void;
      const started = new Promise<void>((r) => (unitStarted = r));
      const late = store.write(async (tx) => {
        await insert(tx, 2);
        unitStarted();
        await unitMayFinish;
        await insert(tx, 3);
        return 'late';
      });
      await started;
      held.fail(fsyncFailure());
      await expect(first).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      await settle();
      finishUnit();
      await expect(late).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      expect(inFile(file)).toEqual([1]);
      expect(fatal).toHaveLength(1);
    } finally {
      await closeStore(store);
    }
  });

  it('a batch that fails before its COMMIT while the one before syncs is refused after that one is answered, and the next waits for that sync too', async () => {
    const { store, file } = await openTestStore();
    try {
      const { holds, started } = holdEverySync();
      const events: string[] = [];
      const a = store.write((tx) => insert(tx, 1)).then(() => events.push('A answered'));
      await started(1);
      const b = store.write(diskFullUnit).then(
        () => events.push('B answered'),
        (err: { code?: string }) => events.push(`B refused: ${err.code}`),
      );
      await settle();
      const c = store.write((tx) => insert(tx, 3)).then(() => events.push('C answered'));
      await settle();
      // Only A's sync has started; C is neither committed nor answered, B not yet refused.
      expect(holds).toHaveLength(1);
      expect(inFile(file)).toEqual([1]);
      expect(events).toEqual([]);

      holds[0]!.release();
      await started(2);
      // A is answered, then B refused; C committed and waits for its own sync, unseen by reads meanwhile.
      expect(events).toEqual(['A answered', 'B refused: SQLITE_FULL']);
      expect(inFile(file)).toEqual([1, 3]);
      const read = rows(store);
      const readState = settledState(read);
      await settle();
      expect(readState.settled).toBe(false);
      expect(events).toHaveLength(2);
      holds[1]!.release();
      await Promise.all([a, b, c]);
      expect(events).toEqual(['A answered', 'B refused: SQLITE_FULL', 'C answered']);
      expect(await read).toEqual([1, 3]);
    } finally {
      await closeStore(store);
    }
  });

  it('when the sync of the batch before a failed one fails, the batch after them is refused too, and it is reported once', async () => {
    const fatal: StoreError[] = [];
    const { store, file } = await openTestStore({ onFatal: (err) => fatal.push(err) });
    try {
      const { holds, started } = holdEverySync();
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => 'ok',
          (err: { code?: string }) => err.code,
        );
      const a = outcome(store.write((tx) => insert(tx, 1)));
      await started(1);
      const b = outcome(store.write(diskFullUnit));
      await settle();
      const c = outcome(store.write((tx) => insert(tx, 3)));
      await settle();
      holds[0]!.fail(fsyncFailure());
      expect(await Promise.all([a, b, c])).toEqual(['SQLITE_IOERR_FSYNC', 'SQLITE_FULL', 'SQLITE_IOERR_FSYNC']);
      expect(holds).toHaveLength(1);
      expect(inFile(file)).toEqual([1]);
      expect(fatal).toHaveLength(1);
    } finally {
      await closeStore(store);
    }
  });

  it('close() waits for a batch still syncing when the batch after it failed before its COMMIT', async () => {
    const { store } = await openTestStore();
    const { holds, started } = holdEverySync();
    let aSettled = false;
    const a = store.write((tx) => insert(tx, 1)).finally(() => (aSettled = true));
    await started(1);
    const b = store.write(diskFullUnit).catch(() => undefined);
    await settle();
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    holds[0]!.release();
    await a;
    await b;
    await closing;
    expect(aSettled).toBe(true);
  });

  it('an afterCommit hook that throws does not leave the rest of its batch unanswered; its error is thrown on its own', async () => {
    const { store } = await openTestStore();
    try {
      await catchingUncaught(async (thrown) => {
        const held = holdNextSync();
        const first = store.write(async (tx) => {
          await insert(tx, 1);
          tx.afterCommit(() => {
            throw new Error('hook failed');
          });
        });
        await held.syncStarted;
        const others = [2, 3].map((v) => store.write((tx) => insert(tx, v)));
        held.release();
        await first;
        await Promise.all(others);
        await settle();
        expect(thrown).toHaveLength(1);
        expect(thrown[0]).toMatchObject({ message: 'hook failed' });
        expect(await rows(store)).toEqual([1, 2, 3]);
      });
    } finally {
      await closeStore(store);
    }
  });

  it('without onFatal, a failed sync ends the process (the error is thrown on the event loop)', async () => {
    const { store } = await openTestStore();
    try {
      await catchingUncaught(async (thrown) => {
        const held = holdNextSync();
        const w = store.write((tx) => insert(tx, 1));
        await held.syncStarted;
        held.fail(new Error('EIO'));
        await expect(w).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
        await settle();
        expect(thrown).toHaveLength(1);
        expect(thrown[0]).toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
      });
    } finally {
      await closeStore(store);
    }
  });

  it('lets the event loop run between the units of a long batch, in one transaction and one commit', async () => {
    const { store } = await openTestStore({ yieldAfterMs: 1 });
    try {
      const commits = store.stats.commits;
      let ticks = 0;
      let running = 0;
      const timer = setInterval(() => (ticks += running > 0 ? 1 : 0), 0);
      const spin = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end);
      };
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.write(async (tx) => {
            running = 1;
            spin(0.5);
            await insert(tx, i);
          }),
        ),
      );
      running = 0;
      clearInterval(timer);
      expect(store.stats.commits - commits).toBe(1);
      expect(ticks).toBeGreaterThan(3);
      expect((await rows(store)).length).toBe(40);
    } finally {
      await closeStore(store);
    }
  });

  it('lets the event loop turn between batches when each unit is queued by the previous one’s acknowledgement (work in steps)', async () => {
    const { store } = await openTestStore();
    try {
      // A purge or sweep in steps: the next unit is queued from the last one's continuation, a
      // microtask. Batches of units that need no sync must still let timers and sockets in.
      let timerFiredAtStep: number | undefined;
      let step = 0;
      setTimeout(() => (timerFiredAtStep = step), 0);
      for (; step < 300; step++) await store.write((tx) => insert(tx, step), { durable: false });
      // Without the turn the timer fires only after the last step (undefined here).
      expect(timerFiredAtStep).toBeDefined();
      expect(timerFiredAtStep!).toBeLessThan(300);
      expect((await rows(store)).length).toBe(300);
    } finally {
      await closeStore(store);
    }
  });

  it('a second store of the same process waits for the write lock without stopping the loop the first one needs to let it go', async () => {
    // Two stores on one file in one process (two instances in a test, a tool
    // beside the service): A holds the write lock while its batch yields.
    // Were B to wait inside SQLite (busy_timeout), it would sleep on the
    // event loop A needs to finish, until its timeout: "database is locked".
    const { store: a, file } = await openTestStore({ yieldAfterMs: 1 });
    const b = await openSqliteStore({ file });
    try {
      const spin = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end);
      };
      let bStarted!: () => void;
      const bMayStart = new Promise<void>((r) => (bStarted = r));
      const started = performance.now();
      const aUnits = Array.from({ length: 20 }, (_, i) =>
        a.write(async (tx) => {
          spin(0.5);
          await insert(tx, i);
          if (i === 2) bStarted(); // A's batch is open and about to yield
        }),
      );
      await bMayStart;
      const bUnit = b.write((tx) => insert(tx, 100));
      await Promise.all([...aUnits, bUnit]);
      expect(performance.now() - started).toBeLessThan(2000);
      expect((await rows(b)).length).toBe(21);
    } finally {
      await closeStore(a);
      await b.close();
    }
  });
});

describe('SQLite commit path: callbacks', () => {
  it('does not deliver a callback of a payment whose batch waits for its WAL sync', async () => {
    const service = await testService();
    if (service.store.dialect !== 'sqlite') return;
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const m = await seedMerchant(service, 'Callback Merchant');
    await allowPrivateCallbacks(service);
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: receiver.url }));
    const buy = await newBuy(service, m);

    const held = holdNextSync();
    const paid = write(service, (tx) => service.services.sandbox.simulate(tx, buy.order_no, 'pay'));
    await held.syncStarted;
    // The dispatcher looks for due callbacks now: it must find nothing it may send.
    const dispatched = service.work.runDue();
    await settle();
    expect(receiver.received).toEqual([]);
    const duringSync = settledState(paid);
    expect(duringSync.settled).toBe(false);

    held.release();
    await paid;
    await dispatched;
    await service.work.runDue();
    expect(receiver.received[0]?.fields).toMatchObject({ order_no: buy.order_no, status: 'paid' });
  });
});
