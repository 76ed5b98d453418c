/**
 * The PostgreSQL engine: migrations (from an empty database and from every
 * earlier version, once when instances start together, refused when the
 * database is newer), clear errors for bad configuration, and how SQL is
 * handed to the server.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTempPostgres, type TempPostgres } from '../../../../scripts/temp-postgres';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SchemaTooNewError } from '../../../../src-main/store/migrations/index';
import { toPgStatement } from '../../../../src-main/store/postgres/placeholders';
import { describePostgresUrl, openPostgresStore, requireServerVersion } from '../../../../src-main/store/postgres/postgres-store';
import type { ReadTx } from '../../../../src-main/store/store';
import { serveFailure } from '../../../support/serve-child';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';

async function schemaOf(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const parts: string[] = [];
    for (const r of (
      await c.query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default, collation_name FROM information_schema.columns
         WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
      )
    ).rows) parts.push(`column ${JSON.stringify(r)}`);
    for (const r of (await c.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)).rows) parts.push(`index ${r.indexdef}`);
    for (const r of (await c.query(`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`)).rows) {
      parts.push(`constraint ${r.conname} ${r.def}`);
    }
    for (const r of (await c.query(`SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`)).rows) parts.push(`trigger ${r.def}`);
    return parts;
  } finally {
    await c.end();
  }
}

async function versions(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
  } finally {
    await c.end();
  }
}

describe('PostgreSQL store: migrations', () => {
  it('migrates an empty database to the latest version, recording every step', async () => {
    const url = await freshPostgresDatabase({ empty: true });
    const store = await openPostgresStore({ url });
    await store.close();
    expect(await versions(url)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('migrates from every earlier version to the same schema as a fresh database, keeping data', async () => {
    const freshUrl = await freshPostgresDatabase({ empty: true });
    await (await openPostgresStore({ url: freshUrl })).close();
    const expected = await schemaOf(freshUrl);
    for (const m of MIGRATIONS) {
      const url = await freshPostgresDatabase({ empty: true });
      const old = await openPostgresStore({ url, targetVersion: m.version });
      await old.write((tx) =>
        tx.run("INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, enabled, createtime, updatetime) VALUES ('Old', 'mk_old', 'v1:x', 'md5', 1, 1, 1)"),
      );
      await old.close();
      expect(await versions(url)).toEqual(MIGRATIONS.filter((x) => x.version <= m.version).map((x) => x.version));
      const upgraded = await openPostgresStore({ url });
      expect(await upgraded.read((tx) => tx.get("SELECT name, sign_type FROM merchants WHERE api_key = 'mk_old'"))).toEqual({ name: 'Old', sign_type: 'md5' });
      await upgraded.close();
      expect(await schemaOf(url)).toEqual(expected);
    }
  }, 120_000);

  it('migrates once when several instances start on an empty database at the same time', async () => {
    const url = await freshPostgresDatabase({ empty: true });
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url, poolSize: 2 })));
    await Promise.all(stores.map((s) => s.close()));
    expect(await versions(url)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('refuses a database written by a newer program, and leaves it as it was', async () => {
    // A database of its own (dropped afterwards): a migrated copy would go back to the pool with the future version.
    const url = await freshPostgresDatabase({ empty: true });
    await (await openPostgresStore({ url })).close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 0)', [LATEST_SCHEMA_VERSION + 3, 'from the future']);
    await c.end();
    const err = await openPostgresStore({ url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect(String(err)).toMatch(new RegExp(`schema version ${LATEST_SCHEMA_VERSION + 3}, newer than this program knows \\(${LATEST_SCHEMA_VERSION}\\)`));
    expect((await versions(url)).at(-1)).toBe(LATEST_SCHEMA_VERSION + 3);
  });
});

describe('PostgreSQL store: bad configuration is named before anything starts', () => {
  let server: TempPostgres;
  beforeAll(async () => {
    // A server of its own with password authentication (the shared test server trusts everyone).
    server = await startTempPostgres();
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query("CREATE ROLE mc_app LOGIN PASSWORD 'right-password'");
    await c.query('CREATE DATABASE mc_app OWNER mc_app');
    const hba = (await c.query<{ hba_file: string }>('SHOW hba_file')).rows[0]!.hba_file;
    await c.end();
    const fs = await import('node:fs');
    fs.writeFileSync(hba, 'local all postgres trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n');
    const c2 = new pg.Client({ connectionString: server.url });
    await c2.connect();
    await c2.query('SELECT pg_reload_conf()');
    await c2.end();
  }, 60_000);
  afterAll(() => server?.stop());

  const url = (user: string, password: string, database: string, port = server.port) => `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;

  it('opens with the right credentials', async () => {
    const store = await openPostgresStore({ url: url('mc_app', 'right-password', 'mc_app') });
    expect(store.location).toBe(`postgres://mc_app@127.0.0.1:${server.port}/mc_app`);
    await store.close();
  });

  it('wrong password: says the credentials were refused, never prints the password', async () => {
    const err = await openPostgresStore({ url: url('mc_app', 'wrong-password', 'mc_app') }).catch((e: Error) => e);
    expect(String(err)).toMatch(/refused the credentials of user mc_app \(28P01\)/);
    expect(String(err)).not.toContain('wrong-password');
  });

  it('serve with a wrong password: exit 1 before it listens, naming the user and not the password', async () => {
    const refused = await serveFailure(tempDir(), ['--database-url', url('mc_app', 'wrong-password', 'mc_app'), '--master-key-file', path.join(tempDir(), 'k')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PostgreSQL at postgres:\/\/mc_app@127\.0\.0\.1:\d+\/mc_app refused the credentials of user mc_app \(28P01\): check the user name and password in the database URL/);
    expect(refused.stderr).not.toContain('wrong-password');
    const unknownUser = await serveFailure(tempDir(), ['--database-url', url('nobody', 'x', 'mc_app')]);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/refused the credentials of user nobody \(28P01\)/);
  }, 60_000);

  it('missing database: names it and says how to create it', async () => {
    const err = await openPostgresStore({ url: url('mc_app', 'right-password', 'no_such_db') }).catch((e: Error) => e);
    expect(String(err)).toMatch(/database no_such_db does not exist on the PostgreSQL server at postgres:\/\/mc_app@127\.0\.0\.1:\d+\/no_such_db: create it first \(createdb no_such_db\)/);
  });

  it('unreachable server: names the address and the cause', async () => {
    const err = await openPostgresStore({ url: url('mc_app', 'right-password', 'mc_app', 9) }).catch((e: Error) => e);
    expect(String(err)).toMatch(/cannot reach PostgreSQL at postgres:\/\/mc_app@127\.0\.0\.1:9\/mc_app \(ECONNREFUSED\)/);
  });

  it('a server older than 15 is refused', () => {
    expect(() => requireServerVersion(140_011, '14.11', 'postgres://u:secret@h/db')).toThrow('PostgreSQL 15 or newer is required; the server at postgres://u@h/db runs 14.11');
    expect(() => requireServerVersion(150_000, '15.0', 'postgres://h/db')).not.toThrow();
  });

  it('messages never carry the password', () => {
    expect(describePostgresUrl('postgres://app:s3cr3t@db.example:5432/mc')).toBe('postgres://app@db.example:5432/mc');
    expect(describePostgresUrl('postgres://:s3cr3t@db.example/mc')).not.toContain('s3cr3t');
  });
});

describe('PostgreSQL store: statements of one unit of work', () => {
  it('sends statements started at once without waiting for the answers before them (pipeline), answered in the order they were started', async () => {
    const store = await openPostgresStore({ url: await freshPostgresDatabase(), poolSize: 2 });
    const inFlight = new Map<object, number>();
    let most = 0;
    const sent: { text: string; alongside: number }[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text: string };
      sent.push({ text: typeof config === 'string' ? config : config.text, alongside: inFlight.get(this) ?? 0 });
      inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
      most = Math.max(most, inFlight.get(this)!);
      const done = () => inFlight.set(this, inFlight.get(this)! - 1);
      const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      result.then(done, done);
      return result as never;
    });
    try {
      // A service mapping over a list with Promise.all: all twelve go at once, behind the BEGIN.
      const values = await store.write((tx) => Promise.all(Array.from({ length: 12 }, (_, i) => tx.get<{ v: number }>('SELECT ?::bigint AS v, pg_sleep(0.001)', [i]))));
      expect(values.map((r) => r!.v)).toEqual(Array.from({ length: 12 }, (_, i) => i));
      expect(most).toBe(13);

      // A unit's first statement travels with its BEGIN, a savepoint's opening with the statement after it.
      sent.length = 0;
      await store.write(async (tx) => {
        await tx.get('SELECT 1 AS v');
        await tx.savepoint((sp) => sp.get('SELECT 2 AS v'));
      });
      expect(sent.map((s) => [s.text.replace(/ sp\d+$/, ' sp'), s.alongside])).toEqual([
        ['BEGIN', 0],
        ['SELECT 1 AS v', 1],
        ['SAVEPOINT sp', 0],
        ['SELECT 2 AS v', 1],
        ['COMMIT', 0],
      ]);

      const failed = await store
        .read((tx) => Promise.all([tx.get('SELECT 1 AS v'), tx.get('SELECT no_such_column FROM merchants'), tx.get('SELECT 2 AS v')]))
        .catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: '42703' });
      // A statement started after its unit ended never reaches the connection (back in the pool, maybe another unit's).
      let kept: ReadTx | undefined;
      await store.read(async (tx) => {
        kept = tx;
      });
      await expect(kept!.get('SELECT 1 AS v')).rejects.toThrow('a statement was started after its unit of work ended');
    } finally {
      spy.mockRestore();
      await store.close();
    }
  });

  it('the BEGIN of a unit and the statements its function starts at once leave in one write to the server', async () => {
    const store = await openPostgresStore({ url: await freshPostgresDatabase(), poolSize: 1 });
    const writes: string[][] = [];
    const spied = new Set<object>();
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const socket = this.connection.stream as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
      if (!spied.has(socket)) {
        spied.add(socket);
        // What the socket hands to the kernel: one chunk list per write. Protocol messages: the text after each type byte and length.
        const words = (buffers: Buffer[]) => buffers.map((b) => b.toString('latin1')).join('').match(/(BEGIN|SAVEPOINT|COMMIT|SELECT \$1::bigint AS [abc])/g) ?? [];
        const write = socket._write.bind(socket);
        const writev = socket._writev.bind(socket);
        socket._write = (chunk: unknown, ...rest: unknown[]) => (writes.push(words([chunk as Buffer])), write(chunk, ...rest));
        socket._writev = (chunks: unknown, ...rest: unknown[]) => (writes.push(words((chunks as { chunk: Buffer }[]).map((c) => c.chunk))), writev(chunks, ...rest));
      }
      return (query as (...a: unknown[]) => Promise<unknown>).apply(this, args) as never;
    });
    try {
      await store.write(async (tx) => {
        await Promise.all([tx.get('SELECT ?::bigint AS a', [1]), tx.get('SELECT ?::bigint AS b', [2])]);
        await tx.savepoint((sp) => sp.get('SELECT ?::bigint AS c', [3]));
      });
      expect(writes.filter((w) => w.length > 0)).toEqual([['BEGIN', 'SELECT $1::bigint AS a', 'SELECT $1::bigint AS b'], ['SAVEPOINT', 'SELECT $1::bigint AS c'], ['COMMIT']]);
    } finally {
      spy.mockRestore();
      await store.close();
    }
  });

  it('a connection lost while a unit holds it fails that unit (unavailable) and leaves the process and the store running', async () => {
    const url = await freshPostgresDatabase();
    const store = await openPostgresStore({ url, poolSize: 1 });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    const uncaught: unknown[] = [];
    const hear = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', hear);
    try {
      const unit = store.write((tx) => tx.get('SELECT pg_sleep(2)')).catch((e: unknown) => e);
      await vi.waitFor(async () => {
        const killed = await other.query("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(2)' AND pid <> pg_backend_pid()");
        expect(killed.rows).toEqual([{ ok: true }]);
      });
      expect(await unit).toMatchObject({ name: 'StoreError', kind: 'unavailable' });
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
      // The pool replaced the connection.
      expect(await store.read((tx) => tx.get('SELECT 1 AS v'))).toEqual({ v: 1 });
    } finally {
      process.off('uncaughtException', hear);
      await other.end();
      await store.close();
    }
  });

  it('a unit whose failed statement was swallowed (no savepoint) is refused at COMMIT, and nothing of it is stored', async () => {
    const store = await openPostgresStore({ url: await freshPostgresDatabase(), poolSize: 2 });
    try {
      await store.write((tx) => tx.run('CREATE TABLE t (v INTEGER PRIMARY KEY)'));
      const err = await store
        .write(async (tx) => {
          await tx.run('INSERT INTO t (v) VALUES (1)');
          await tx.run('INSERT INTO t (v) VALUES (1)').catch(() => undefined);
          return 'done';
        })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreError', code: 'ROLLED_BACK' });
      expect(await store.read((tx) => tx.all('SELECT v FROM t'))).toEqual([]);
      // A refusal undone to its savepoint commits the rest.
      await store.write(async (tx) => {
        await tx.run('INSERT INTO t (v) VALUES (2)');
        await tx.savepoint((sp) => sp.run('INSERT INTO t (v) VALUES (2)')).catch(() => undefined);
      });
      expect(await store.read((tx) => tx.all('SELECT v FROM t'))).toEqual([{ v: 2 }]);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL store: units of one statement (writeAlone)', () => {
  const SETTING = "SELECT current_setting('synchronous_commit') AS v";
  it("a relaxed one switches its connection to synchronous_commit off; every unit after it on that connection has the server's setting again", async () => {
    // One connection, so every unit below runs on the one the relaxed statement switched. The tests' server runs
    // with synchronous_commit off; this database is set to on, as a production server is.
    const url = await freshPostgresDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit TO on`);
    await admin.end();
    const store = await openPostgresStore({ url, poolSize: 1 });
    try {
      const setting = (tx: ReadTx) => tx.get<{ v: string }>(SETTING).then((r) => r!.v);
      expect(await store.writeAlone(setting)).toBe('on');
      expect(await store.writeAlone(setting, { durable: false })).toBe('off');
      expect(await store.write(setting)).toBe('on');
      expect(await store.writeAlone(setting, { durable: false })).toBe('off');
      expect(await store.writeAlone(setting)).toBe('on');
      expect(await store.writeAlone(setting, { durable: false })).toBe('off');
      expect(await store.read(setting)).toBe('on');
      // A relaxed unit with a transaction: SET LOCAL, on whatever the session had.
      expect(await store.write(setting, { durable: false })).toBe('off');
      expect(await store.write(setting)).toBe('on');
      // A connection handed out for use outside the units (advisory locks, LISTEN) is durable too.
      await store.writeAlone(setting, { durable: false });
      const client = await store.connect();
      try {
        expect((await client.query<{ v: string }>(SETTING)).rows[0]!.v).toBe('on');
      } finally {
        client.release();
      }
      expect(store.stats).toMatchObject({ alone: 6, relaxedCommits: 5 });
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL store: SQL text', () => {
  it('rewrites @name and ? placeholders to $n, leaving quoted text and casts alone', () => {
    const named = toPgStatement("SELECT * FROM t WHERE a = @a AND b = @b AND c = @a AND d = '@not' AND e::bigint > 0");
    expect(named.text).toBe("SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $1 AND d = '@not' AND e::bigint > 0");
    expect(named.values({ a: 1, b: 'x', extra: true })).toEqual([1, 'x']);
    expect(() => named.values({ a: 1 })).toThrow('missing named parameter @b');
    const positional = toPgStatement("SELECT ? AS x, '?' AS y, ?::bigint AS z");
    expect(positional.text).toBe("SELECT $1 AS x, '?' AS y, $2::bigint AS z");
    expect(positional.values([1, 2])).toEqual([1, 2]);
    expect(() => positional.values([1])).toThrow('expected 2 parameters, got 1');
    // The same text is one prepared statement.
    expect(toPgStatement("SELECT ? AS x, '?' AS y, ?::bigint AS z").name).toBe(positional.name);
  });
});
