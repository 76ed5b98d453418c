import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SAFETY_NET_FRAMES, startCheckpointer } from '../../../src-main/store/sqlite/checkpointer';
import { openSqliteStore, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';

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

  it('checkpoints at once when asked (checkpointNow), and answers false once stopped', async () => {
    const { file, store, sizeBefore } = await storeWithEmptyWal();
    try {
      // Its timer out of the way: only the request can copy anything.
      const checkpointer = store.startCheckpointer({ intervalMs: 3_600_000 });
      expect(checkpointer.running).toBe(true);
      await insertRows(store);
      expect(fs.statSync(file).size).toBe(sizeBefore);
      expect(await checkpointer.checkpointNow(10_000)).toBe(true);
      expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 80_000);
      expect(await checkpointer.stop()).toBe(1);
      expect(checkpointer.running).toBe(false);
      expect(await checkpointer.checkpointNow(10_000)).toBe(false);
      expect(await store.read((tx) => tx.get('PRAGMA integrity_check'))).toEqual({ integrity_check: 'ok' });
    } finally {
      await store.close();
    }
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
      expect(await checkpointer.checkpointNow(10_000)).toBe(false);
      expect(performance.now() - asked).toBeLessThan(1000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(await checkpointer.stop()).toBe(0);
    } finally {
      db.close();
    }
  });
});
