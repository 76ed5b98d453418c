/**
 * Which store the tests run on: SQLite (default) or PostgreSQL (the
 * `postgres` vitest project sets MERCHANT_CONSOLE_TEST_ENGINE=postgres). For
 * PostgreSQL every test service gets a database of its own, copied from a
 * migrated template (test/support/postgres-global-setup.ts made it) and
 * dropped after the test.
 */
import path from 'node:path';
import pg from 'pg';
import { afterEach, inject } from 'vitest';
import { openStore } from '../../src-main/store/open-store';
import type { Store } from '../../src-main/store/store';

export type TestEngine = 'sqlite' | 'postgres';

export const TEST_ENGINE: TestEngine = process.env.MERCHANT_CONSOLE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the tests' PostgreSQL server (any database on it). */
    postgresAdminUrl: string;
    /** Name of the migrated template database. */
    postgresTemplate: string;
  }
}

export function postgresAdminUrl(): string {
  const url = inject('postgresAdminUrl');
  if (!url) throw new Error('no PostgreSQL server for the tests: run them through the postgres vitest project');
  return url;
}

function urlOfDatabase(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.href;
}

/** Databases this test used: dropped (one-off) or emptied and kept for the next test of this worker (migrated copies). */
const used: { name: string; reusable: boolean }[] = [];
/** Migrated copies of the template, emptied, ready for the next test of this worker. */
const free: string[] = [];
let counter = 0;

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database: migrated to the latest schema (a copy of the template,
 * or one an earlier test of this worker used and emptied), or empty
 * (template0; dropped after the test).
 */
export async function freshPostgresDatabase(options: { empty?: boolean } = {}): Promise<string> {
  let name = options.empty ? undefined : free.pop();
  if (!name) {
    name = `mc_t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
    const n = name;
    await withAdmin((c) => c.query(`CREATE DATABASE ${n} TEMPLATE ${options.empty ? 'template0' : inject('postgresTemplate')} STRATEGY FILE_COPY`));
  }
  used.push({ name, reusable: !options.empty });
  return urlOfDatabase(postgresAdminUrl(), name);
}

/** Ends every other session on the database (a killed `serve` may leave one), then empties its tables. */
async function empty(admin: pg.Client, name: string): Promise<void> {
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  const db = new pg.Client({ connectionString: urlOfDatabase(postgresAdminUrl(), name) });
  await db.connect();
  try {
    // audit_head holds the one row migration 9 seeds (the chain's start): reset, not emptied; row_generation the
    // one row migration 11 seeds, which the TRUNCATE of merchants replaces.
    const tables = (
      await db.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'audit_head', 'row_generation')")
    ).rows;
    await db.query(`TRUNCATE ${tables.map((r) => r.t).join(', ')} RESTART IDENTITY CASCADE`);
    await db.query("UPDATE audit_head SET last_id = 0, last_hash = repeat('0', 64)");
  } finally {
    await db.end();
  }
}

/** Data dir → its database on PostgreSQL: a data dir stands for one store, whichever engine. */
const byDataDir = new Map<string, Promise<string>>();

afterEach(async () => {
  byDataDir.clear();
  if (used.length === 0) return;
  const done = used.splice(0);
  await withAdmin(async (c) => {
    for (const { name, reusable } of done) {
      if (!reusable) {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        continue;
      }
      try {
        await empty(c, name);
        free.push(name);
      } catch {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    }
  });
});

/**
 * The database a data dir's store lives in on the current engine:
 * undefined on SQLite (the file in the data dir), else a fresh PostgreSQL
 * database, the same one for every later service, CLI call or `serve` child
 * on that data dir in this test.
 */
export function databaseUrlFor(dir: string): Promise<string | undefined> {
  if (TEST_ENGINE === 'sqlite') return Promise.resolve(undefined);
  const dataDir = path.resolve(dir);
  let url = byDataDir.get(dataDir);
  if (!url) {
    url = freshPostgresDatabase();
    byDataDir.set(dataDir, url);
  }
  return url;
}

/** The environment a CLI run or `serve` child on this data dir needs on the current engine. */
export async function engineEnvFor(dataDir: string | undefined): Promise<NodeJS.ProcessEnv> {
  const url = dataDir === undefined ? undefined : await databaseUrlFor(dataDir);
  return url ? { MERCHANT_CONSOLE_DATABASE_URL: url } : {};
}

/** The value of `--name VALUE` or `--name=VALUE` in argv. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1];
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
  }
  return undefined;
}

/** Runs SQL on a PostgreSQL database through a session of its own (as psql or another instance would). */
export async function runSqlOn(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** A store of the current engine on a fresh SQLite file or PostgreSQL database (closed by the caller). */
export async function openTestStore(dir: string): Promise<Store> {
  const url = await databaseUrlFor(dir);
  return openStore(url ? { kind: 'postgres', url } : { kind: 'sqlite', file: path.join(dir, 'db.sqlite') });
}
