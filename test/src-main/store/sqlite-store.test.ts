/**
 * The SQLite engine of the store API: pragmas, migrations, group commit
 * (savepoint per unit, or none for a unit that writes last; one durable
 * commit per batch), relaxed commits, the
 * reader's committed snapshot, and storage failures inside a batch.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SchemaTooNewError, type Migration } from '../../../src-main/store/migrations/index';
import { migrateSqlite, openSqliteStore, schemaVersionOf, sqliteStatementText, sqliteTestHooks, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import { StoreError, type WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';

/** The schema as SQLite reports it, for comparing two databases. */
function schemaOf(file: string): string[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as {
      type: string;
      name: string;
      sql: string | null;
    }[]).map((r) => `${r.type} ${r.name}: ${(r.sql ?? '').replace(/\s+/g, ' ')}`);
  } finally {
    db.close();
  }
}

async function withStore<T>(fn: (store: SqliteStore, file: string) => Promise<T>, options: { maxBatch?: number } = {}): Promise<T> {
  const file = path.join(tempDir(), 'db.sqlite');
  const store = await openSqliteStore({ file, ...options });
  try {
    return await fn(store, file);
  } finally {
    await store.close();
  }
}

async function scratchTable(store: SqliteStore): Promise<void> {
  await store.write((tx) => (tx as WriteTx & { exec(sql: string): Promise<void> }).run('CREATE TABLE t (v INTEGER UNIQUE)'));
}

const insert = (tx: WriteTx, v: number) => tx.run('INSERT INTO t (v) VALUES (?)', [v]);
const count = (store: SqliteStore) => store.read(async (tx) => (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n);
const level = async (tx: WriteTx) => (await tx.get<{ synchronous: number }>('PRAGMA synchronous'))!.synchronous; // 1 NORMAL, 2 FULL

/** Caps the file at its current size: new pages cannot be had (SQLITE_FULL). */
async function fillUp(store: SqliteStore): Promise<void> {
  await store.write(async (tx) => {
    const pages = (await tx.get<{ page_count: number }>('PRAGMA page_count'))!.page_count;
    await tx.get(`PRAGMA max_page_count = ${pages}`);
  });
}

describe('SQLite store: opening and migrations', () => {
  it('sets WAL, synchronous=NORMAL (the store syncs the WAL itself) and foreign keys, and migrates an empty file to the latest version', async () => {
    await withStore(async (store, file) => {
      await store.write(async (tx) => {
        expect(await tx.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
        expect(await level(tx)).toBe(1); // NORMAL: COMMIT writes the WAL, the store then fdatasyncs it (sqlite-commit-path.test.ts)
        expect(await tx.get('PRAGMA foreign_keys')).toEqual({ foreign_keys: 1 });
      });
      const db = new BetterSqlite3(file, { readonly: true });
      expect(schemaVersionOf(db)).toBe(LATEST_SCHEMA_VERSION);
      db.close();
    });
  });

  it('migrates from every earlier version to the same schema as a fresh file, keeping data', async () => {
    const dir = tempDir();
    const freshFile = path.join(dir, 'fresh.sqlite');
    await (await openSqliteStore({ file: freshFile })).close();
    const expected = schemaOf(freshFile);

    // Every version a user may have, the latest included (opening it again must change nothing).
    for (const m of MIGRATIONS) {
      const file = path.join(dir, `from-v${m.version}.sqlite`);
      const old = await openSqliteStore({ file, targetVersion: m.version });
      // A merchant exists in every version since 1 and must survive every later migration.
      await old.write((tx) =>
        tx.run("INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, enabled, createtime, updatetime) VALUES ('Old', 'mk_old', 'v1:x', 'md5', 1, 1, 1)"),
      );
      await old.close();
      const raw = new BetterSqlite3(file, { readonly: true });
      expect(schemaVersionOf(raw)).toBe(m.version);
      raw.close();
      const upgraded = await openSqliteStore({ file });
      expect(await upgraded.read((tx) => tx.get("SELECT name, sign_type FROM merchants WHERE api_key = 'mk_old'"))).toEqual({ name: 'Old', sign_type: 'md5' });
      await upgraded.close();
      expect(schemaOf(file)).toEqual(expected);
    }
  });

  it('applies each migration once, atomically: a failing migration leaves the previous version', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    await (await openSqliteStore({ file })).close();
    const db = new BetterSqlite3(file);
    const broken: Migration[] = [
      ...MIGRATIONS,
      {
        version: LATEST_SCHEMA_VERSION + 1,
        name: 'broken',
        schema: { sqlite: 'CREATE TABLE half_done (x)', postgres: 'CREATE TABLE half_done (x int)' },
        async data() {
          throw new Error('boom');
        },
      },
    ];
    await expect(migrateSqlite(db, broken, LATEST_SCHEMA_VERSION + 1)).rejects.toThrow('boom');
    expect(schemaVersionOf(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    // Running again at the latest version is a no-op.
    await migrateSqlite(db, MIGRATIONS, LATEST_SCHEMA_VERSION);
    expect(schemaVersionOf(db)).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });

  it('refuses a file written by a newer program', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 5}`);
    db.close();
    await expect(openSqliteStore({ file })).rejects.toThrow(SchemaTooNewError);
  });

  it('gives a clear error for a data file that is not a database', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    fs.writeFileSync(file, 'this is not sqlite'.repeat(100));
    await expect(openSqliteStore({ file })).rejects.toThrow(/not a database/);
  });

  it('enforces the schema rules the services rely on, reported as store errors of a kind', async () => {
    await withStore(async (store) => {
      const check = await store
        .write((tx) => tx.run("INSERT INTO channels (category, name, pay_method, min_amount, max_amount, createtime, updatetime) VALUES ('delta', 'x', 'bank', 1, 2, 1, 1)"))
        .catch((e: unknown) => e);
      expect(check).toBeInstanceOf(StoreError);
      expect(check).toMatchObject({ kind: 'check', code: 'SQLITE_CONSTRAINT_CHECK' });
      const fk = await store.write((tx) => tx.run('INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (99, 99, 1)')).catch((e: unknown) => e);
      expect(fk).toMatchObject({ kind: 'foreign-key' });
    });
  });
});

describe('SQLite store: group commit', () => {
  it('commits units of work queued in the same tick together and resolves each after the commit', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const before = store.stats.commits;
      const results = await Promise.all([1, 2, 3, 4, 5].map((v) => store.write(async (tx) => (await insert(tx, v), v * 10))));
      expect(results).toEqual([10, 20, 30, 40, 50]);
      expect(await count(store)).toBe(5);
      expect(store.stats.commits - before).toBe(1);
      expect(store.stats.largestBatch).toBe(5);
    });
  });

  it('rolls back only the failing unit of a batch, as a store error of kind unique', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const outcomes = await Promise.allSettled([
        store.write((tx) => insert(tx, 1)),
        store.write(async (tx) => {
          await insert(tx, 2);
          await insert(tx, 1); // unique violation: this unit's own insert of 2 must be undone too
        }),
        store.write((tx) => insert(tx, 3)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ kind: 'unique' });
      expect(await store.read((tx) => tx.all('SELECT v FROM t ORDER BY v'))).toEqual([{ v: 1 }, { v: 3 }]);
    });
  });

  it('undoes a savepoint only, and the unit goes on', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await store.write(async (tx) => {
        await insert(tx, 1);
        await expect(
          tx.savepoint(async (sp) => {
            await insert(sp, 2);
            throw new Error('refused');
          }),
        ).rejects.toThrow('refused');
        await insert(tx, 3);
      });
      expect(await store.read((tx) => tx.all('SELECT v FROM t ORDER BY v'))).toEqual([{ v: 1 }, { v: 3 }]);
    });
  });

  // SQLite names its temp files etilqs_* and unlinks them at once; an open one shows in /proc/self/fd.
  const openTempFiles = () =>
    fs
      .readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return ''; // closed meanwhile (readdir's own descriptor)
        }
      })
      .filter((target) => target.includes('etilqs_'));

  it.runIf(process.platform === 'linux')('keeps the journal of a unit that changes much in memory, never in a temp file, and can still undo it', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      // 30,000 rows: far more than the 64 KiB after which SQLite moves a journal to a temp file by default.
      await store.write((tx) => tx.run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) INSERT INTO t (v) SELECT i FROM n'));
      let duringUnit: string[] | undefined;
      await store.write(async (tx) => {
        await expect(
          tx.savepoint(async (sp) => {
            await sp.run('UPDATE t SET v = -v');
            duringUnit = openTempFiles();
            throw new Error('refused');
          }),
        ).rejects.toThrow('refused');
      });
      expect(duringUnit).toEqual([]);
      expect(await store.read((tx) => tx.get('SELECT min(v) AS lo, max(v) AS hi, count(*) AS n FROM t'))).toEqual({ lo: 1, hi: 30000, n: 30000 });
    });
  });

  it('runs afterCommit hooks after the commit, never for a unit that rolled back or a savepoint that was undone', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const ran: string[] = [];
      await store.write(async (tx) => {
        tx.afterCommit(() => ran.push('kept'));
        await tx.savepoint(async (sp) => {
          sp.afterCommit(() => ran.push('undone'));
          throw new Error('x');
        }).catch(() => undefined);
        expect(ran).toEqual([]);
      });
      await store.write(async (tx) => {
        tx.afterCommit(() => ran.push('rolled back'));
        throw new Error('y');
      }).catch(() => undefined);
      expect(ran).toEqual(['kept']);
    });
  });

  it('splits large bursts into batches of at most maxBatch', async () => {
    await withStore(
      async (store) => {
        await scratchTable(store);
        const before = store.stats.commits;
        await Promise.all(Array.from({ length: 10 }, (_, i) => store.write((tx) => insert(tx, i))));
        expect(await count(store)).toBe(10);
        expect(store.stats.largestBatch).toBe(4);
        expect(store.stats.commits - before).toBe(3);
      },
      { maxBatch: 4 },
    );
  });

  it('rejects every unit of a batch whose commit fails, leaving nothing written', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await fillUp(store);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 3 }, (_, i) =>
          store.write(async (tx) => {
            // Enough rows to need new pages: the database is "full".
            for (let k = 0; k < 2000; k++) await insert(tx, i * 10_000 + k);
          }),
        ),
      );
      expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
      expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ kind: 'storage' });
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/full/i);
      expect(await count(store)).toBe(0);
    });
  });

  it('never runs the rest of a batch outside the transaction after SQLite rolled it back', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await fillUp(store);
      const outcomes = await Promise.allSettled([
        store.write(async (tx) => {
          for (let k = 0; k < 5000; k++) await insert(tx, k); // fills the database: SQLITE_FULL
        }),
        store.write((tx) => insert(tx, -1)), // one small row would still fit in autocommit mode
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(await count(store)).toBe(0);
    });
  });

  it('never acknowledges a unit that ran fine when a later unit of its batch makes SQLite roll the batch back', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await fillUp(store);
      const outcomes = await Promise.allSettled([
        store.write((tx) => insert(tx, -1)), // fits in the page already there
        store.write(async (tx) => {
          for (let k = 0; k < 5000; k++) await insert(tx, k); // SQLITE_FULL: the whole transaction is rolled back
        }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(await count(store)).toBe(0);
    });
  });

  it('syncs the WAL after every batch with a durable unit, never after a batch of only non-durable units', async () => {
    let syncs = 0;
    sqliteTestHooks.syncWal = (sync) => (syncs++, sync());
    try {
      await withStore(async (store) => {
        await scratchTable(store);
        const before = { syncs, relaxed: store.stats.relaxedCommits };
        await Promise.all([1, 2].map((v) => store.write((tx) => insert(tx, v), { durable: false })));
        expect(syncs - before.syncs).toBe(0);
        await Promise.all([store.write((tx) => insert(tx, 3), { durable: false }), store.write((tx) => insert(tx, 4))]);
        expect(syncs - before.syncs).toBe(1);
        // A failed relaxed unit: nothing to sync either.
        await expect(store.write((tx) => insert(tx, 1), { durable: false })).rejects.toThrow(/UNIQUE/);
        expect(syncs - before.syncs).toBe(1);
        expect(await count(store)).toBe(4);
        expect(store.stats.relaxedCommits - before.relaxed).toBe(2);
      });
    } finally {
      sqliteTestHooks.syncWal = undefined;
    }
  });
});

describe('SQLite store: units that write last (WriteOptions.writesLast)', () => {
  /** Releases the batch's per-unit savepoint if the unit runs in one (it must not): SQLite says whether one is open. */
  const savepointOpen = async (tx: WriteTx) => {
    try {
      await tx.run('RELEASE job');
      return true;
    } catch (err) {
      expect(String(err)).toMatch(/no such savepoint/);
      return false;
    }
  };
  const last = { writesLast: true };

  it('runs without a savepoint of its own: reads, then one write, committed with the rest of its batch', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const before = store.stats.commits;
      const seen: boolean[] = [];
      const results = await Promise.all([
        store.write((tx) => insert(tx, 1)),
        store.writeAlone(async (tx) => {
          seen.push(await savepointOpen(tx));
          const n = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;
          await insert(tx, 10 + n);
          return n;
        }, last),
        store.write((tx) => insert(tx, 3)),
      ]);
      // The unit saw the batch's first insert (one transaction), and no savepoint.
      expect(results[1]).toBe(1);
      expect(seen).toEqual([false]);
      expect(store.stats.commits - before).toBe(1);
      expect(await store.read((tx) => tx.all('SELECT v FROM t ORDER BY v'))).toEqual([{ v: 1 }, { v: 3 }, { v: 11 }]);
    });
  });

  it('fails alone when it fails before or at its write, leaving nothing; the rest of the batch commits', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const outcomes = await Promise.allSettled([
        store.write((tx) => insert(tx, 1)),
        store.write(async (tx) => {
          await tx.get('SELECT count(*) FROM t');
          throw new Error('refused after reading');
        }, last),
        store.write((tx) => insert(tx, 1), last), // its write fails (unique): the statement leaves nothing
        store.write((tx) => insert(tx, 3)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused after reading' });
      expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ kind: 'unique' });
      expect(await store.read((tx) => tx.all('SELECT v FROM t ORDER BY v'))).toEqual([{ v: 1 }, { v: 3 }]);
    });
  });

  it('refuses a statement after the write, and a unit that failed after writing fails its whole batch, leaving nothing', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const cases: ((tx: WriteTx) => Promise<unknown>)[] = [
        async (tx) => (await insert(tx, 2), tx.get('SELECT 1')),
        // A write through get (RETURNING) is the write too.
        async (tx) => (await tx.get('INSERT INTO t (v) VALUES (2) RETURNING v'), tx.run('INSERT INTO t (v) VALUES (4)')),
        async (tx) => {
          await insert(tx, 2);
          throw new Error('failed after its write');
        },
      ];
      const ownErrors = [{ code: 'WRITE_NOT_LAST' }, { code: 'WRITE_NOT_LAST' }, { message: 'failed after its write' }];
      for (const [k, unit] of cases.entries()) {
        const outcomes = await Promise.allSettled([store.write((tx) => insert(tx, 1)), store.write(unit, last), store.write((tx) => insert(tx, 3))]);
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
        // The unit gets its own error; the others a storage error (a 503 to their clients), not the unit's.
        const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason);
        expect(reasons[1]).toMatchObject(ownErrors[k]!);
        for (const other of [reasons[0], reasons[2]]) expect(other).toMatchObject({ kind: 'storage', code: 'BATCH_ABORTED' });
        expect(await count(store)).toBe(0);
      }
      // Neither a script nor a savepoint: what they write could not be told apart from a read.
      await expect(store.write((tx) => tx.savepoint(() => insert(tx, 5)), last)).rejects.toMatchObject({ code: 'WRITE_NOT_LAST' });
      await expect(store.write((tx) => (tx as WriteTx & { exec(sql: string): Promise<void> }).exec('DELETE FROM t'), last)).rejects.toMatchObject({ code: 'WRITE_NOT_LAST' });
      // The store goes on.
      await store.write((tx) => insert(tx, 7), last);
      expect(await store.read((tx) => tx.all('SELECT v FROM t'))).toEqual([{ v: 7 }]);
    });
  });

  it('never writes outside the batch after SQLite rolled it back under the unit, whether the unit goes on or swallows the error', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      // What SQLite does on some disk-full and I/O errors, done here by hand (a transaction statement reads nothing and
      // writes nothing, so the unit may run it): the batch's transaction is gone.
      const rolledBack = (tx: WriteTx) => tx.run('ROLLBACK');
      const cases: ((tx: WriteTx) => Promise<unknown>)[] = [
        async (tx) => (await rolledBack(tx), insert(tx, 2)), // its write would commit on its own
        async (tx) => {
          await rolledBack(tx);
          await insert(tx, 2).catch(() => undefined); // swallowed: nothing would tell without a check after the unit
          return 'fine';
        },
      ];
      for (const unit of cases) {
        const outcomes = await Promise.allSettled([store.write((tx) => insert(tx, 1)), store.write(unit, last), store.write((tx) => insert(tx, 3))]);
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
        expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ kind: 'storage', code: 'BATCH_ROLLED_BACK' });
        expect(await count(store)).toBe(0);
      }
    });
  });
});

describe('SQLite store: reads', () => {
  it('reads only committed data: a read during an open batch sees neither its writes nor a unit that then rolls back', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      let seenInside: number | undefined;
      const pendingRead: Promise<number>[] = [];
      await Promise.allSettled([
        store.write(async (tx) => {
          await insert(tx, 1);
          // Another request's read, started while this batch is open (between two statements of it).
          pendingRead.push(count(store));
          seenInside = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;
          throw new Error('refused after writing');
        }),
      ]);
      expect(seenInside).toBe(1);
      expect(await pendingRead[0]).toBe(0);
      expect(await count(store)).toBe(0);
    });
  });

  it('gives each read unit one snapshot, and runs read units one after the other', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await store.write((tx) => insert(tx, 1));
      const order: string[] = [];
      const a = store.read(async (tx) => {
        order.push('a start');
        const first = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;
        await new Promise((r) => setTimeout(r, 20));
        const second = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;
        order.push('a end');
        return [first, second];
      });
      const b = store.read(async () => {
        order.push('b');
      });
      const w = store.write((tx) => insert(tx, 2));
      expect(await a).toEqual([1, 1]);
      await b;
      await w;
      expect(order).toEqual(['a start', 'a end', 'b']);
      expect(await count(store)).toBe(2);
    });
  });

  it('refuses writes on the reader (the read unit is read-only)', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      const err = await store.read((tx) => (tx as unknown as WriteTx).get('INSERT INTO t (v) VALUES (1) RETURNING v')).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'storage' });
      expect(await count(store)).toBe(0);
    });
  });
});

describe('SQLite store: statement text', () => {
  it('gives SQLite a parameter LIMIT as an expression (compiled once, not at every bind) and leaves everything else as written', () => {
    expect(sqliteStatementText('SELECT * FROM t ORDER BY v LIMIT ?')).toBe('SELECT * FROM t ORDER BY v LIMIT CAST(? AS INTEGER)');
    expect(sqliteStatementText('SELECT * FROM t ORDER BY v DESC LIMIT @limit OFFSET @offset')).toBe(
      'SELECT * FROM t ORDER BY v DESC LIMIT CAST(@limit AS INTEGER) OFFSET @offset',
    );
    expect(sqliteStatementText('DELETE FROM t WHERE v IN (SELECT v FROM t ORDER BY v LIMIT ?) AND v < ?')).toBe(
      'DELETE FROM t WHERE v IN (SELECT v FROM t ORDER BY v LIMIT CAST(? AS INTEGER)) AND v < ?',
    );
    for (const unchanged of ['SELECT * FROM t LIMIT 20', 'SELECT * FROM t LIMIT 20 OFFSET ?', 'SELECT limit_value FROM t WHERE v = ?']) {
      expect(sqliteStatementText(unchanged)).toBe(unchanged);
    }
  });

  it('pages as written: LIMIT and OFFSET parameters, positional and named, reused with other values', async () => {
    await withStore(async (store) => {
      await scratchTable(store);
      await store.write(async (tx) => {
        for (let v = 1; v <= 30; v++) await insert(tx, v);
      });
      const page = (limit: number, offset: number) =>
        store.read(async (tx) => (await tx.all<{ v: number }>('SELECT v FROM t ORDER BY v DESC LIMIT @limit OFFSET @offset', { limit, offset })).map((r) => r.v));
      expect(await page(3, 0)).toEqual([30, 29, 28]);
      expect(await page(2, 27)).toEqual([3, 2]);
      expect(await page(5, 29)).toEqual([1]);
      expect(await page(0, 0)).toEqual([]);
      const first = (limit: number) => store.read(async (tx) => (await tx.all<{ v: number }>('SELECT v FROM t ORDER BY v LIMIT ?', [limit])).map((r) => r.v));
      expect(await first(4)).toEqual([1, 2, 3, 4]);
      expect(await first(1)).toEqual([1]);
    });
  });
});

describe('SQLite store: rows', () => {
  it("gives the objects better-sqlite3 makes: the same members in the same order, a repeated name's later value, odd names, RETURNING, no row", async () => {
    await withStore(async (store, file) => {
      await store.write(async (tx) => {
        await tx.run("CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, amount INTEGER, rate TEXT, note BLOB, \"odd \"\"name\"\"\" TEXT)");
        await tx.run("INSERT INTO r (name, amount, rate, note, \"odd \"\"name\"\"\") VALUES ('a', 9007199254740991, '0.0055', x'00ff', 'q'), ('b', -1, NULL, NULL, NULL)");
      });
      const statements = [
        'SELECT * FROM r ORDER BY id',
        'SELECT id, name AS id, amount, id FROM r ORDER BY id',
        "SELECT coalesce(sum(amount), 0), count(*) AS n, 'x' AS \"__proto__\" FROM r",
        'SELECT name, amount * 2 AS twice, rate FROM r WHERE id = ? ORDER BY id',
        'SELECT name FROM r WHERE id > 99',
      ];
      const plain = new BetterSqlite3(file, { readonly: true });
      try {
        for (const sql of statements) {
          const params = sql.includes('?') ? [1] : [];
          const expected = plain.prepare(sql).all(...params) as Record<string, unknown>[];
          for (const rows of [await store.read((tx) => tx.all<Record<string, unknown>>(sql, params)), await store.write((tx) => tx.all<Record<string, unknown>>(sql, params))]) {
            expect(rows, sql).toEqual(expected);
            expect(rows.map((r) => Object.keys(r)), sql).toEqual(expected.map((r) => Object.keys(r)));
            expect(rows.every((r) => Object.getPrototypeOf(r) === Object.prototype), sql).toBe(true);
          }
          const first = await store.read((tx) => tx.get<Record<string, unknown>>(sql, params));
          expect(first, sql).toEqual(expected[0]);
        }
        // A repeated name holds the later column, in the first one's place.
        expect(Object.entries((await store.read((tx) => tx.get<Record<string, unknown>>('SELECT id, amount, name AS id FROM r ORDER BY id')))!)).toEqual([
          ['id', 'a'],
          ['amount', 9007199254740991],
        ]);
      } finally {
        plain.close();
      }
      const returned = await store.write((tx) => tx.all<Record<string, unknown>>("INSERT INTO r (name, amount) VALUES ('c', 3) RETURNING id, name, amount"));
      expect(returned).toEqual([{ id: 3, name: 'c', amount: 3 }]);
      expect(await store.write((tx) => tx.run("UPDATE r SET amount = 4 WHERE name = 'c' RETURNING id"))).toBe(1);
    });
  });

  it('makes rows with the columns as they are after another process rebuilt a table under its statements', async () => {
    await withStore(async (store, file) => {
      await store.write(async (tx) => {
        await tx.run('CREATE TABLE m (id INTEGER PRIMARY KEY, enabled INTEGER NOT NULL, secret TEXT NOT NULL)');
        await tx.run("INSERT INTO m (enabled, secret) VALUES (1, 'SECRET')");
      });
      const byRead = () => store.read((tx) => tx.get<Record<string, unknown>>('SELECT * FROM m'));
      const byWrite = () => store.write((tx) => tx.get<Record<string, unknown>>('SELECT * FROM m'));
      expect(await byRead()).toEqual({ id: 1, enabled: 1, secret: 'SECRET' });
      expect(await byWrite()).toEqual({ id: 1, enabled: 1, secret: 'SECRET' });

      // Another process (a newer version's migration) rebuilds the table with its columns in another order and adds one.
      const other = new BetterSqlite3(file);
      try {
        other.exec(`BEGIN IMMEDIATE;
          CREATE TABLE m2 (id INTEGER PRIMARY KEY, secret TEXT NOT NULL, enabled INTEGER NOT NULL, note TEXT);
          INSERT INTO m2 (id, secret, enabled, note) SELECT id, secret, enabled, 'n' FROM m;
          DROP TABLE m; ALTER TABLE m2 RENAME TO m; COMMIT;`);
      } finally {
        other.close();
      }
      // The statements SQLite compiled again by itself: each value under its own name, the new column with them.
      expect(await byRead()).toEqual({ id: 1, secret: 'SECRET', enabled: 1, note: 'n' });
      expect(await byWrite()).toEqual({ id: 1, secret: 'SECRET', enabled: 1, note: 'n' });
    });
  });
});
