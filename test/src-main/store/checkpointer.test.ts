import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SAFETY_NET_FRAMES, startCheckpointer } from '../../../src-main/store/sqlite/checkpointer';
import { openSqliteStore, sqliteTestHooks, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';
import { walSalts } from '../../support/wal-header';

const autocheckpoint = async (tx: WriteTx) => (await tx.get<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint'))!.wal_autocheckpoint;

/** A store with a table and an empty WAL (checkpointed by a connection of our own: the store's writer checkpoints only at its threshold). */
async function storeWithEmptyWal(): Promise<{ file: string; store: SqliteStore; sizeBefore: number }> {
  const file = path.join(tempDir(), 'db.sqlite');
  const store = await openSqliteStore({ file });
  await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)'));
  const own = new BetterSqlite3(file);
  own.pragma('wal_checkpoint(TRUNCATE)');
  own.close();
  return { file, store, sizeBefore: fs.statSync(file).size };
}

/** 200 rows of 500 bytes: about 100 KB in the WAL. */
async function insertRows(store: SqliteStore): Promise<void> {
  for (let i = 0; i < 200; i++) await store.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['x'.repeat(500)]));
}

describe('checkpointer (WAL checkpoints on a worker thread)', () => {
  it('moves committed WAL frames into the database file while the store keeps writing, and stops cleanly', async () => {
    const { file, store, sizeBefore } = await storeWithEmptyWal();
    try {
      const checkpointer = store.startCheckpointer({ intervalMs: 10 });
      expect(await store.write(autocheckpoint)).toBe(SAFETY_NET_FRAMES);
      await insertRows(store);
      // The writer's threshold is far away, so only the worker can have
      // copied the rows from the WAL into the database file.
      const until = Date.now() + 10_000;
      while (fs.statSync(file).size < sizeBefore + 80_000) {
        if (Date.now() > until) throw new Error('the worker never checkpointed');
        await new Promise((r) => setTimeout(r, 20));
      }
      const ran = await checkpointer.stop();
      expect(ran).toBeGreaterThan(0);
      expect(await store.write(autocheckpoint)).toBe(1000);
      expect(await store.read((tx) => tx.get('SELECT count(*) AS n FROM t'))).toEqual({ n: 200 });
      expect(await store.read((tx) => tx.get('PRAGMA integrity_check'))).toEqual({ integrity_check: 'ok' });
    } finally {
      await store.close();
    }
  });

  it('checkpoints at once when asked (startWalOver), and answers false once stopped', async () => {
    const { file, store, sizeBefore } = await storeWithEmptyWal();
    try {
      // Its timer out of the way: only the request can copy anything.
      const checkpointer = store.startCheckpointer({ intervalMs: 3_600_000 });
      expect(checkpointer.running).toBe(true);
      await insertRows(store);
      expect(fs.statSync(file).size).toBe(sizeBefore);
      expect(await checkpointer.startWalOver(10_000)).toBe(true);
      expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 80_000);
      // Its checkpoint and the store's at start (the worker's first write into the WAL).
      expect(await checkpointer.stop()).toBe(2);
      expect(checkpointer.running).toBe(false);
      expect(await checkpointer.startWalOver(10_000)).toBe(false);
      expect(await store.read((tx) => tx.get('PRAGMA integrity_check'))).toEqual({ integrity_check: 'ok' });
    } finally {
      await store.close();
    }
  });

  it('catches up when asked (catchUp): every frame copied back, the WAL not started over, the writer going on', async () => {
    const { file, store, sizeBefore } = await storeWithEmptyWal();
    const answers: boolean[] = [];
    sqliteTestHooks.walRestartedByWorker = (ok) => answers.push(ok);
    try {
      expect(fs.statSync(`${file}-wal`).size).toBe(0);
      const checkpointer = store.startCheckpointer({ intervalMs: 3_600_000 });
      await insertRows(store);
      // The WAL was empty: the worker wrote its first header (and synced it), before the store's first commit.
      expect(answers).toEqual([true]);
      const salts = walSalts(file);
      expect(fs.statSync(file).size).toBe(sizeBefore);
      expect(await checkpointer.catchUp(10_000)).toBe(true);
      expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 80_000);
      // A checkpoint alone: the WAL keeps its header (only a write after it would start the WAL over).
      expect(walSalts(file)).toBe(salts);
      await insertRows(store);
      expect(await store.read((tx) => tx.get('SELECT count(*) AS n FROM t'))).toEqual({ n: 400 });
      await checkpointer.stop();
      expect(await checkpointer.catchUp(10_000)).toBe(false);
    } finally {
      sqliteTestHooks.walRestartedByWorker = undefined;
      await store.close();
    }
  });

  it('runs a timed checkpoint only intervalMs after its last checkpoint of any kind: none between a catchUp and the startWalOver the store asks for next', async () => {
    const { store } = await storeWithEmptyWal();
    try {
      // On a fixed beat of 500 ms, 1.6 s of asking would meet three timed checkpoints; each catchUp puts the next one 500 ms off.
      // Asked at once, with nothing slow before (200 durable writes could take longer than the interval on a loaded machine).
      const checkpointer = store.startCheckpointer({ intervalMs: 500 });
      let asked = 0;
      const until = performance.now() + 1600;
      while (performance.now() < until) {
        await store.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['y'.repeat(500)]));
        // Whatever it answers (false while the worker's mark is behind the new row): a checkpoint ran.
        await checkpointer.catchUp(10_000);
        asked++;
        await new Promise((r) => setTimeout(r, 100));
      }
      // The one the store asked for at start (the worker's first write into the WAL) and those asked here: no timed one.
      expect(await checkpointer.stop()).toBe(asked + 1);
      expect(await store.read((tx) => tx.get('SELECT count(*) AS n FROM t'))).toEqual({ n: asked });
    } finally {
      await store.close();
    }
  });

  it('starts the WAL over on the worker (startWalOver): a new header and the file cut back without a commit of the writer, nothing lost; not while a reader holds a mark on it', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const limit = 16 * 4096;
    // The writer as the store sets it up, by hand: nothing starts the WAL over but the worker's startWalOver.
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('user_version = 7');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const insertRows = () => {
      for (let i = 0; i < 200; i++) insert.run('x'.repeat(500));
    };
    const count = () => db.prepare('SELECT count(*) AS n FROM t').get();
    // Its timer out of the way: only the requests checkpoint.
    const checkpointer = startCheckpointer(db, { intervalMs: 3_600_000, journalSizeLimit: limit });
    const reader = new BetterSqlite3(file);
    try {
      insertRows();
      const salts = walSalts(file);
      // A reader's mark on the WAL, at its last frame: the checkpoint copies every frame, but SQLite does not start over.
      reader.exec('BEGIN');
      expect(reader.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 200 });
      expect(await checkpointer.startWalOver(10_000)).toBe(false);
      expect(walSalts(file)).toBe(salts);
      // Frames past the reader's mark: the checkpoint cannot copy them all.
      insertRows();
      expect(await checkpointer.startWalOver(10_000)).toBe(false);
      expect(walSalts(file)).toBe(salts);
      reader.exec('COMMIT');

      const grown = fs.statSync(`${file}-wal`).size;
      expect(grown).toBeGreaterThan(limit);
      expect(await checkpointer.startWalOver(10_000)).toBe(true);
      // Nothing of the writer's ran in between: the worker's own write started the WAL over and cut it back.
      expect(walSalts(file)).not.toBe(salts);
      expect(fs.statSync(`${file}-wal`).size).toBe(limit);
      // The writer writes on into the new WAL; every row is there, user_version as it was.
      insert.run('after');
      expect(count()).toEqual({ n: 401 });
      expect(db.pragma('user_version', { simple: true })).toBe(7);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      await checkpointer.stop();
      expect(await checkpointer.startWalOver(10_000)).toBe(false);
    } finally {
      reader.close();
      db.close();
    }
    const again = new BetterSqlite3(file);
    try {
      expect(again.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 401 });
    } finally {
      again.close();
    }
  });

  it('with ownsWalRestarts, no commit of the writer starts the WAL over after the timed checkpoints copied every frame (without it, one does)', async () => {
    /** Commits of the writer that started the WAL over: its salts changed across the commit (nothing else writes). */
    const writerRestarts = async (ownsWalRestarts: boolean) => {
      const file = path.join(tempDir(), 'db.sqlite');
      const db = new BetterSqlite3(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      const checkpointer = startCheckpointer(db, { intervalMs: 5, ownsWalRestarts });
      try {
        // As the store does at start: the worker's write first, its mark on the WAL after it.
        if (ownsWalRestarts) expect(await checkpointer.startWalOver(10_000)).toBe(true);
        let restarts = 0;
        for (let round = 0; round < 20; round++) {
          for (let i = 0; i < 10; i++) {
            const before = walSalts(file);
            insert.run('x'.repeat(500));
            if (walSalts(file) !== before) restarts++;
          }
          // Several timed checkpoints with nothing to race them: each round's last one copies every frame.
          await new Promise((r) => setTimeout(r, 40));
        }
        // The worker copied the rows back all the same (the database file holds them), and nothing is lost.
        expect(fs.statSync(file).size).toBeGreaterThan(200 * 500);
        expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 200 });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        return restarts;
      } finally {
        await checkpointer.stop();
        db.close();
      }
    };
    expect(await writerRestarts(true)).toBe(0);
    expect(await writerRestarts(false)).toBeGreaterThan(5);
  });

  it('a worker that could not start is not running: asked for a checkpoint it answers false at once, and the connection checkpoints itself again', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    try {
      const errors: string[] = [];
      const checkpointer = startCheckpointer(db, { nativeBinding: path.join(tempDir(), 'missing.node'), onError: (m) => errors.push(m) });
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(SAFETY_NET_FRAMES);
      const until = Date.now() + 10_000;
      while (checkpointer.running) {
        if (Date.now() > until) throw new Error('the worker did not exit');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(errors.length).toBeGreaterThan(0);
      const asked = performance.now();
      expect(await checkpointer.startWalOver(10_000)).toBe(false);
      expect(performance.now() - asked).toBeLessThan(1000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(await checkpointer.stop()).toBe(0);
    } finally {
      db.close();
    }
  });
});
