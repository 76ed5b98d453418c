/**
 * The store API's promises, the same on both engines (this suite runs in the
 * node project on SQLite and in the postgres project on PostgreSQL):
 * atomic units of work, savepoints, hooks after commit, error kinds, numbers
 * and text compared as the services expect, and row locks that make a
 * read-check-write safe under concurrency.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLedgerRepository } from '../../../src-main/repositories/ledger-repository';
import type { Store, WriteTx } from '../../../src-main/store/store';
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
});
