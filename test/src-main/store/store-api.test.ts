/**
 * The store API's promises, the same on both engines (this suite runs in the
 * node project on SQLite and in the postgres project on PostgreSQL):
 * atomic units of work, savepoints, hooks after commit, error kinds, numbers
 * and text compared as the services expect, row locks that make a
 * read-check-write safe under concurrency, and units of one statement
 * (writeAlone: one statement without BEGIN/COMMIT on PostgreSQL, a batch unit on SQLite).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLedgerRepository } from '../../../src-main/repositories/ledger-repository';
import { StoreError, type Store, type WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';
import { openTestStore, TEST_ENGINE } from '../../support/test-engine';

let open: Store[] = [];
afterEach(async () => {
  for (const s of open) await s.close();
  open = [];
});

async function store(): Promise<Store> {
  const s = await openTestStore(tempDir());
  open.push(s);
  return s;
}

const merchant = (tx: WriteTx, key: string) =>
  tx.get<{ id: number }>(
    `INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, enabled, createtime, updatetime) VALUES (@name, @key, 'v1:x', 'md5', 1, 1, 1) RETURNING id`,
    { name: `m ${key}`, key },
  );

describe(`store API (${TEST_ENGINE})`, () => {
  it('reports its dialect', async () => {
    expect((await store()).dialect).toBe(TEST_ENGINE);
  });

  it('commits a unit of work whole, or nothing of it when it throws', async () => {
    const s = await store();
    const id = (await s.write((tx) => merchant(tx, 'a')))!.id;
    expect(typeof id).toBe('number');
    await expect(
      s.write(async (tx) => {
        await merchant(tx, 'b');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await s.read((tx) => tx.all('SELECT api_key FROM merchants ORDER BY id'))).toEqual([{ api_key: 'a' }]);
  });

  it('undoes only a savepoint, also after a statement in it failed, and the unit goes on', async () => {
    const s = await store();
    await s.write(async (tx) => {
      await merchant(tx, 'a');
      // A unique violation inside the savepoint: PostgreSQL aborts the transaction unless the savepoint is rolled back.
      await expect(tx.savepoint((sp) => merchant(sp, 'a'))).rejects.toMatchObject({ kind: 'unique' });
      await merchant(tx, 'c');
    });
    expect(await s.read((tx) => tx.all('SELECT api_key FROM merchants ORDER BY id'))).toEqual([{ api_key: 'a' }, { api_key: 'c' }]);
  });

  it('runs afterCommit hooks only after a commit', async () => {
    const s = await store();
    const ran: string[] = [];
    await s.write(async (tx) => {
      tx.afterCommit(() => ran.push('committed'));
      expect(ran).toEqual([]);
    });
    await s
      .write(async (tx) => {
        tx.afterCommit(() => ran.push('rolled back'));
        throw new Error('no');
      })
      .catch(() => undefined);
    expect(ran).toEqual(['committed']);
  });

  it('commits relaxed (durable: false) units too', async () => {
    const s = await store();
    await s.write((tx) => merchant(tx, 'relaxed'), { durable: false });
    expect(await s.read((tx) => tx.get('SELECT api_key FROM merchants'))).toEqual({ api_key: 'relaxed' });
  });

  it('returns integers, counts and sums as JS numbers, and binds named and positional parameters', async () => {
    const s = await store();
    await s.write(async (tx) => {
      await merchant(tx, 'a');
      await merchant(tx, 'b');
    });
    const row = await s.read((tx) =>
      tx.get<{ n: number; total: number; big: number }>('SELECT count(*) AS n, sum(id) AS total, max(createtime) + ? AS big FROM merchants', [9_000_000_000]),
    );
    expect(row).toEqual({ n: 2, total: 3, big: 9_000_000_001 });
    expect(await s.read((tx) => tx.get('SELECT api_key FROM merchants WHERE api_key = @k', { k: 'b' }))).toEqual({ api_key: 'b' });
  });

  it('compares text byte-wise, as an order-number prefix range needs', async () => {
    const s = await store();
    const rows = await s.read((tx) =>
      tx.all<{ x: number }>(`SELECT CASE WHEN 'B20261121103000' >= ? AND 'B20261121103000' < ? || '~' THEN 1 ELSE 0 END AS x`, ['B2026', 'B2026']),
    );
    expect(rows).toEqual([{ x: 1 }]);
    const order = await s.read((tx) => tx.all<{ v: string }>(`SELECT v FROM (SELECT 'a' AS v UNION ALL SELECT 'B' UNION ALL SELECT '~' UNION ALL SELECT '_') t ORDER BY v`));
    expect(order.map((r) => r.v)).toEqual(['B', '_', 'a', '~']);
  });

  it('keeps a read-check-write on a locked balance correct when units run at the same time', async () => {
    const s = await store();
    const ledger = createLedgerRepository();
    const id = (await s.write((tx) => merchant(tx, 'a')))!.id;
    await s.write((tx) => ledger.lockBalance(tx, id, 1).then(() => ledger.applyBalanceDelta(tx, id, { available: 1000, frozen: 0, deposit: 0 }, 1)));
    // 30 units each take 100 only if the balance (checked after the lock) still covers it: exactly 10 succeed.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () =>
        s.write(async (tx) => {
          const b = await ledger.lockBalance(tx, id, 2);
          if (b.available < 100) throw new Error('insufficient');
          await ledger.applyBalanceDelta(tx, id, { available: -100, frozen: 0, deposit: 0 }, 2);
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect((await s.read((tx) => ledger.balance(tx, id)))!.available).toBe(0);
  });

  describe('writeAlone: a unit at its least cost (PostgreSQL: one statement)', () => {
    const keys = (s: Store) => s.read((tx) => tx.all<{ api_key: string }>('SELECT api_key FROM merchants ORDER BY id')).then((rows) => rows.map((r) => r.api_key));

    it('commits its statement, answers what fn returns and counts the unit in stats.alone', async () => {
      const s = await store();
      const before = { ...s.stats };
      const row = await s.writeAlone((tx) => merchant(tx, 'alone'));
      expect(row).toEqual({ id: expect.any(Number) });
      expect(await keys(s)).toEqual(['alone']);
      expect(s.stats.alone).toBe(before.alone + 1);
      expect(s.stats.writes).toBe(before.writes + 1);
      // A unit of work of `write` is not one of them.
      await s.write((tx) => merchant(tx, 'unit'));
      expect(s.stats.alone).toBe(before.alone + 1);
      expect(await keys(s)).toEqual(['alone', 'unit']);
    });

    it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: refuses a second statement with ONE_STATEMENT, after the first was committed', async () => {
      const s = await store();
      const alone = s.stats.alone;
      let ran = false;
      const refused = s.writeAlone(async (tx) => {
        await merchant(tx, 'first');
        await tx.run("UPDATE merchants SET name = 'second' WHERE api_key = 'first'");
        ran = true;
      });
      await expect(refused).rejects.toBeInstanceOf(StoreError);
      await expect(refused).rejects.toMatchObject({ code: 'ONE_STATEMENT' });
      expect(ran).toBe(false);
      expect(s.stats.alone).toBe(alone);
      // Its own implicit transaction: the first statement was committed once it succeeded; the second never ran.
      expect(await s.read((tx) => tx.all<{ api_key: string; name: string }>('SELECT api_key, name FROM merchants'))).toEqual([{ api_key: 'first', name: 'm first' }]);
      // Every kind of statement counts: get, all and run alike.
      for (const [first, second] of [
        ['get', 'all'],
        ['all', 'run'],
        ['run', 'get'],
      ] as const) {
        await expect(
          s.writeAlone(async (tx) => {
            await tx[first]('SELECT 1 AS one');
            await tx[second]('SELECT 1 AS one');
          }),
        ).rejects.toMatchObject({ code: 'ONE_STATEMENT' });
      }
      // The store goes on: its connection was not left inside a transaction.
      await s.writeAlone((tx) => merchant(tx, 'next'));
      await s.write((tx) => merchant(tx, 'unit'));
      expect(await keys(s)).toEqual(['first', 'next', 'unit']);
    });

    it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: refuses a savepoint without running its function', async () => {
      const s = await store();
      let ran = false;
      await expect(
        s.writeAlone((tx) =>
          tx.savepoint(async (sp) => {
            ran = true;
            return merchant(sp, 'in savepoint');
          }),
        ),
      ).rejects.toMatchObject({ name: 'StoreError', code: 'ONE_STATEMENT' });
      expect(ran).toBe(false);
      expect(await keys(s)).toEqual([]);
      expect(s.stats.alone).toBe(0);
    });

    it.runIf(TEST_ENGINE === 'sqlite')('SQLite: a unit of the batch, several statements atomically: a throw undoes them all, and only them', async () => {
      const s = await store();
      const committed = s.write((tx) => merchant(tx, 'before'));
      const refused = s.writeAlone(async (tx) => {
        await merchant(tx, 'first');
        await tx.run("UPDATE merchants SET name = 'second' WHERE api_key = 'first'");
        await merchant(tx, 'before'); // taken: a unique violation
      });
      const after = s.writeAlone(async (tx) => {
        await merchant(tx, 'after');
        return tx.run("UPDATE merchants SET name = 'renamed' WHERE api_key = 'after'");
      });
      await committed;
      await expect(refused).rejects.toMatchObject({ kind: 'unique' });
      await expect(after).resolves.toBe(1);
      // One batch: the refused unit's savepoint was undone, the others' kept.
      expect(s.stats.largestBatch).toBe(3);
      expect(s.stats.alone).toBe(1);
      expect(await s.read((tx) => tx.all<{ api_key: string; name: string }>('SELECT api_key, name FROM merchants ORDER BY id'))).toEqual([
        { api_key: 'before', name: 'm before' },
        { api_key: 'after', name: 'renamed' },
      ]);
    });

    it('aloneFacts: SQLite shares one map among the units of writeAlone of a transaction, empties it before a unit of write and at the next transaction; PostgreSQL has none', async () => {
      const s = await store();
      const seen: unknown[] = [];
      const look = (tx: WriteTx, set?: string) => {
        seen.push(tx.aloneFacts === undefined ? 'none' : [...tx.aloneFacts.values()]);
        if (set) tx.aloneFacts?.set('fact', set);
        return Promise.resolve();
      };
      // Started together: one batch (one transaction) on SQLite, in this order.
      await Promise.all([
        s.writeAlone((tx) => look(tx, 'a')),
        s.writeAlone((tx) => look(tx), { writesLast: true, durable: false }),
        s.write((tx) => look(tx)),
        s.writeAlone((tx) => look(tx, 'b')),
        s.writeAlone((tx) => look(tx), { writesLast: true, durable: false, fromDurableSnapshot: true }),
      ]);
      await s.writeAlone((tx) => look(tx));
      expect(seen).toEqual(
        TEST_ENGINE === 'sqlite'
          ? [[], ['a'], 'none', [], ['b'], []]
          : ['none', 'none', 'none', 'none', 'none', 'none'],
      );
      if (TEST_ENGINE === 'sqlite') expect(s.stats.largestBatch).toBe(5);
    });

    it('a statement that fails (unique violation) stores nothing and reports its kind', async () => {
      const s = await store();
      await s.write((tx) => merchant(tx, 'taken'));
      await expect(s.writeAlone((tx) => merchant(tx, 'taken'))).rejects.toMatchObject({ kind: 'unique' });
      expect(await keys(s)).toEqual(['taken']);
      expect(s.stats.alone).toBe(0);
    });

    it('gives every unit its connection back: many at once all commit', async () => {
      const s = await store();
      await Promise.all(Array.from({ length: 40 }, (_, i) => s.writeAlone((tx) => merchant(tx, `k${String(i).padStart(2, '0')}`))));
      expect(await keys(s)).toHaveLength(40);
      expect(s.stats.alone).toBe(40);
    });

    it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: runs the statement without BEGIN (its own transaction), unlike a unit of write', async () => {
      const s = await store();
      // VACUUM refuses to run inside a transaction block: it runs as a unit of one statement, not in a unit of write.
      // (pg_stat_activity's xact_start = query_start cannot tell: over the extended protocol even a statement's
      // implicit transaction starts at Parse/Bind, before its query_start at Execute.)
      await expect(s.writeAlone((tx) => tx.run('VACUUM nonces'))).resolves.toBe(0);
      await expect(s.write((tx) => tx.run('VACUUM nonces'))).rejects.toThrow('VACUUM cannot run inside a transaction block');
      await expect(
        s.write(async (tx) => {
          await merchant(tx, 'first');
          await tx.run('VACUUM nonces');
        }),
      ).rejects.toThrow('VACUUM cannot run inside a transaction block');
      expect(await keys(s)).toEqual([]);
      // Not left in a transaction either: the next unit of one statement on a pooled connection is again on its own.
      await s.writeAlone((tx) => merchant(tx, 'alone'));
      await expect(s.writeAlone((tx) => tx.run('VACUUM merchants'))).resolves.toBe(0);
      expect(await keys(s)).toEqual(['alone']);
      expect(s.stats.alone).toBe(3);
    });
  });
});
