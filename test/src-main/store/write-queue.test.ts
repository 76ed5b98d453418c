import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database';
import { createWriteQueue } from '../../../src-main/store/write-queue';
import { tempDir } from '../../support/temp-dir';

function setup(maxBatch?: number) {
  const db = openDatabase(path.join(tempDir(), 'db.sqlite'));
  db.exec('CREATE TABLE t (v INTEGER UNIQUE)');
  const queue = createWriteQueue(db, maxBatch ? { maxBatch } : {});
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  return { db, queue, insert, count };
}

describe('write queue (group commit)', () => {
  it('commits jobs queued in the same tick together and resolves each after the commit', async () => {
    const { db, queue, insert, count } = setup();
    const results = await Promise.all([1, 2, 3, 4, 5].map((v) => queue.run(() => (insert.run(v), v * 10))));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(count()).toBe(5);
    expect(queue.stats).toMatchObject({ batches: 1, jobs: 5, largestBatch: 5 });
    db.close();
  });

  it('rolls back only the failing job of a batch', async () => {
    const { db, queue, insert, count } = setup();
    const outcomes = await Promise.allSettled([
      queue.run(() => insert.run(1)),
      queue.run(() => {
        insert.run(2);
        insert.run(1); // unique violation: this job's own insert of 2 must be undone too
      }),
      queue.run(() => insert.run(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.prepare('SELECT v FROM t ORDER BY v').all()).toEqual([{ v: 1 }, { v: 3 }]);
    expect(count()).toBe(2);
    db.close();
  });

  it('splits large bursts into batches of at most maxBatch', async () => {
    const { db, queue, insert, count } = setup(4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.run(() => insert.run(i))));
    expect(count()).toBe(10);
    expect(queue.stats.largestBatch).toBe(4);
    expect(queue.stats.batches).toBe(3);
    db.close();
  });

  it('rejects every job of a batch whose commit fails, leaving nothing written', async () => {
    const { db, queue, count } = setup();
    db.pragma('max_page_count = ' + String(db.pragma('page_count', { simple: true })));
    const big = db.prepare('INSERT INTO t (v) VALUES (?)');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 }, (_, i) =>
        queue.run(() => {
          // Enough rows to need new pages: the database is "full".
          for (let k = 0; k < 2000; k++) big.run(i * 10_000 + k);
        }),
      ),
    );
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/full/i);
    expect(count()).toBe(0);
    db.close();
  });

  it('never runs the rest of a batch outside the transaction after SQLite rolled it back', async () => {
    const { db, queue, insert, count } = setup();
    db.pragma('max_page_count = ' + String(db.pragma('page_count', { simple: true })));
    const outcomes = await Promise.allSettled([
      queue.run(() => {
        for (let k = 0; k < 5000; k++) insert.run(k); // fills the database: SQLITE_FULL
      }),
      queue.run(() => insert.run(-1)), // one small row would still fit in autocommit mode
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(count()).toBe(0);
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it('never acknowledges a job that ran fine when a later job of its batch makes SQLite roll the batch back', async () => {
    const { db, queue, insert, count } = setup();
    db.pragma('max_page_count = ' + String(db.pragma('page_count', { simple: true })));
    const outcomes = await Promise.allSettled([
      queue.run(() => insert.run(-1)), // fits in the page already there
      queue.run(() => {
        for (let k = 0; k < 5000; k++) insert.run(k); // SQLITE_FULL: the whole transaction is rolled back
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(count()).toBe(0);
    db.close();
  });

  it('commits a batch of only non-durable jobs with synchronous=NORMAL, any other batch with FULL, and is back at FULL after', async () => {
    const { db, queue, insert, count } = setup();
    const level = () => db.pragma('synchronous', { simple: true }) as number; // 1 NORMAL, 2 FULL
    expect(level()).toBe(2);
    const relaxed = await Promise.all([1, 2].map((v) => queue.run(() => (insert.run(v), level()), { durable: false })));
    expect(relaxed).toEqual([1, 1]);
    expect(level()).toBe(2);
    const mixed = await Promise.all([
      queue.run(() => (insert.run(3), level()), { durable: false }),
      queue.run(() => (insert.run(4), level())),
    ]);
    expect(mixed).toEqual([2, 2]);
    // A failed relaxed batch also leaves the connection durable.
    await expect(queue.run(() => insert.run(1), { durable: false })).rejects.toThrow(/UNIQUE/);
    expect(level()).toBe(2);
    expect(count()).toBe(4);
    expect(queue.stats.normalCommits).toBe(2);
    db.close();
  });
});
