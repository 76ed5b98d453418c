/**
 * `serve` and the admin commands on PostgreSQL: selected by --database-url
 * or $MERCHANT_CONSOLE_DATABASE_URL; bad configuration and a master key that
 * does not match the database's are refused with a clear message and a
 * non-zero exit before anything listens, whichever way the key is given
 * (--master-key-file, $MERCHANT_CONSOLE_MASTER_KEY_FILE,
 * $MERCHANT_CONSOLE_MASTER_KEY), also on a store from before the check value
 * and when instances start together on a fresh database. Wrong credentials:
 * postgres-store.test.ts (a server with password authentication).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from '../../../../src-main/store/migrations/index';
import { openPostgresStore } from '../../../../src-main/store/postgres/postgres-store';
import { cli } from '../../../support/cli-harness';
import { serveFailure, startServeChild } from '../../../support/serve-child';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase, postgresAdminUrl } from '../../../support/test-engine';
import { MasterKeyMismatchError, verifyMasterKey } from '../../../../src-main/crypto/key-check';
import { createSecretBox } from '../../../../src-main/crypto/secret-box';
import { createRepositories } from '../../../../src-main/services/context';
import { openStore } from '../../../../src-main/store/open-store';
import type { Store } from '../../../../src-main/store/store';
import pg from 'pg';
import { createMerchantClient } from '../../../../src-shared/client/merchant-client';
import { DEFAULT_POOL_SIZE } from '../../../../src-main/store/postgres/postgres-store';

function keyFile(text = randomBytes(32).toString('base64')): string {
  const file = path.join(tempDir(), 'team.key');
  fs.writeFileSync(file, text + '\n', { mode: 0o600 });
  return file;
}

const MISMATCH = /^the master key does not match the one the secrets in postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ were sealed with: give every instance the same key \(--master-key-file, or MERCHANT_CONSOLE_MASTER_KEY; docs\/deployment\.md\)$/;

/** `serve --json` with this environment, expected to exit before it listens; its error is the document on stderr. */
async function serveRefused(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; error: string }> {
  const err = await startServeChild(tempDir(), { args, env }).then(
    async (child) => {
      await child.stop('SIGKILL');
      return new Error('serve started although it should not have');
    },
    (e: Error) => e,
  );
  const m = /exited with (\S+) before listening\n([\s\S]*)$/.exec(err.message);
  if (!m) throw err;
  return { code: m[1] === 'null' ? null : Number(m[1]), error: (JSON.parse(m[2]!.trim()) as { error: string }).error };
}

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

const keyChecks = (url: string) => query<{ value: string }>(url, "SELECT value FROM settings WHERE key = 'master_key_check'");

describe('serve on PostgreSQL', () => {
  it('runs on the database the URL names, and the admin commands see the same store', async () => {
    const url = await freshPostgresDatabase();
    const key = keyFile();
    const child = await startServeChild(tempDir(), { args: ['--demo', '--master-key-file', key], env: { MERCHANT_CONSOLE_DATABASE_URL: url } });
    expect(child.summary.store).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/mc_t_/);
    const demo = child.summary.demo as { merchant_id: number };
    // Another process (the CLI, with its own empty data dir) on the same database and key.
    const listed = await cli(['merchant', 'list', '--json', '--data-dir', tempDir(), '--database-url', url, '--master-key-file', key]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: demo.merchant_id, name: 'Demo Merchant' })]);
    const status = await cli(['db', 'status', '--json', '--data-dir', tempDir(), '--database-url', url, '--master-key-file', key]);
    expect(status.json()).toMatchObject({ engine: 'postgres', schema_version: LATEST_SCHEMA_VERSION, merchants: 1, backlog: { order_jobs: 0, callbacks_pending: 0 } });
    await child.stop();
  });

  it('refuses to start with a master key other than the one the database was sealed with', async () => {
    const url = await freshPostgresDatabase();
    const first = await startServeChild(tempDir(), { args: ['--demo', '--master-key-file', keyFile(), '--database-url', url] });
    await first.stop();
    const { code, stderr } = await serveFailure(tempDir(), ['--database-url', url, '--master-key-file', keyFile()]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the master key does not match the one the secrets in postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ were sealed with: give every instance the same key/);
  }, 90_000);

  it('names a database that does not exist, a server that is not there, and a database from a newer version', async () => {
    const admin = new URL(postgresAdminUrl());
    admin.pathname = '/no_such_database';
    const missing = await serveFailure(tempDir(), ['--database-url', admin.href]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/database no_such_database does not exist on the PostgreSQL server .*createdb no_such_database/);

    const unreachable = await serveFailure(tempDir(), ['--database-url', 'postgres://app:pw@127.0.0.1:9/mc']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot reach PostgreSQL at postgres:\/\/app@127\.0\.0\.1:9\/mc \(ECONNREFUSED\)/);
    expect(unreachable.stderr).not.toContain(':pw@');

    // A database of its own (dropped afterwards): a migrated copy would go back to the pool with the future version.
    const url = await freshPostgresDatabase({ empty: true });
    await (await openPostgresStore({ url })).close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 0)', [LATEST_SCHEMA_VERSION + 1, 'future']);
    await c.end();
    const newer = await serveFailure(tempDir(), ['--database-url', url]);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toMatch(new RegExp(`schema version ${LATEST_SCHEMA_VERSION + 1}, newer than this program knows`));
  }, 120_000);

  it('refuses a database URL that is not postgres:// with exit 2, naming where it came from', async () => {
    const flag = await serveFailure(tempDir(), ['--database-url', 'mysql://h/db']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--database-url: database URL must start with postgres:\/\//);
    const fromEnv = await cli(['merchant', 'list', '--data-dir', tempDir()], { env: { MERCHANT_CONSOLE_DATABASE_URL: 'nonsense' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/\$MERCHANT_CONSOLE_DATABASE_URL: database URL must look like postgres:\/\//);
  });

  it('takes the key from $MERCHANT_CONSOLE_MASTER_KEY or $MERCHANT_CONSOLE_MASTER_KEY_FILE, and refuses another key from either', async () => {
    const url = await freshPostgresDatabase();
    const key = randomBytes(32).toString('base64');
    const dir = tempDir();
    const inline = await startServeChild(dir, { args: ['--demo', '--database-url', url], env: { MERCHANT_CONSOLE_MASTER_KEY: key } });
    await inline.stop();
    // The key given was used: none was made in the data dir.
    expect(fs.existsSync(path.join(dir, 'master.key'))).toBe(false);
    // The same key from a file is the same key.
    const fromFile = await startServeChild(tempDir(), { args: ['--database-url', url], env: { MERCHANT_CONSOLE_MASTER_KEY_FILE: keyFile(key) } });
    await fromFile.stop();

    const otherInline = await serveRefused(['--database-url', url], { MERCHANT_CONSOLE_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(otherInline.code).toBe(1);
    expect(otherInline.error).toMatch(MISMATCH);
    const otherFile = await serveRefused(['--database-url', url], { MERCHANT_CONSOLE_MASTER_KEY_FILE: keyFile() });
    expect(otherFile.code).toBe(1);
    expect(otherFile.error).toMatch(MISMATCH);
    const malformed = await serveRefused(['--database-url', url], { MERCHANT_CONSOLE_MASTER_KEY: 'not-a-key' });
    expect(malformed.code).toBe(2);
    expect(malformed.error).toBe('$MERCHANT_CONSOLE_MASTER_KEY must be 32 bytes in base64 (44 characters)');
    expect(await keyChecks(url)).toHaveLength(1);
  }, 120_000);

  it('a store from before the check value: the key must open its sealed secrets, and the check is written then', async () => {
    const url = await freshPostgresDatabase();
    const right = keyFile();
    const first = await startServeChild(tempDir(), { args: ['--demo', '--database-url', url, '--master-key-file', right] });
    await first.stop();
    const [check] = await keyChecks(url);
    // As a store written before the check existed: secrets sealed, no check value.
    await query(url, "DELETE FROM settings WHERE key = 'master_key_check'");

    const wrong = await serveRefused(['--database-url', url, '--master-key-file', keyFile()], {});
    expect(wrong.code).toBe(1);
    expect(wrong.error).toMatch(MISMATCH);
    expect(await keyChecks(url)).toEqual([]);

    const again = await startServeChild(tempDir(), { args: ['--database-url', url, '--master-key-file', right] });
    await again.stop();
    expect(await keyChecks(url)).toEqual([check]);
  }, 120_000);

  it('keeps at most --pool-size (else $MERCHANT_CONSOLE_POOL_SIZE) connections, however many requests wait', async () => {
    // Connections of this database opened by merchant-console (the counting client has another application_name).
    const connections = (url: string) =>
      query<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'merchant-console'");
    for (const [how, size] of [
      [{ args: ['--pool-size', '3'] }, 3],
      [{ env: { MERCHANT_CONSOLE_POOL_SIZE: '2' } }, 2],
    ] as const) {
      const url = await freshPostgresDatabase();
      const child = await startServeChild(tempDir(), {
        args: ['--demo', '--database-url', url, '--master-key-file', keyFile(), ...('args' in how ? how.args : [])],
        env: 'env' in how ? how.env : {},
      });
      const demo = child.summary.demo as { api_key: string; api_secret: string };
      const client = createMerchantClient({ baseUrl: child.summary.listening as string, apiKey: demo.api_key, apiSecret: demo.api_secret });
      // Forty at once: more than the default pool, so a size that was not applied would open more connections.
      const answers = await Promise.all(Array.from({ length: 40 }, () => client.orderQueryList()));
      expect(answers.map((a) => a.body.code)).toEqual(Array.from({ length: 40 }, () => 1));
      expect(size).toBeLessThan(DEFAULT_POOL_SIZE);
      // Idle connections stay open 30 s: what the burst opened is still there.
      expect(await connections(url)).toEqual([{ n: size }]);
      await child.stop();
    }
  }, 120_000);

  it('refuses a pool size out of range or without PostgreSQL, with exit 2, naming where it came from', async () => {
    const url = await freshPostgresDatabase();
    for (const [args, env, message] of [
      [['--database-url', url, '--pool-size', '0'], {}, '--pool-size: must be a whole number of connections from 1 to 100, not "0"'],
      [['--database-url', url, '--pool-size', '101'], {}, '--pool-size: must be a whole number of connections from 1 to 100, not "101"'],
      [['--database-url', url], { MERCHANT_CONSOLE_POOL_SIZE: 'ten' }, '$MERCHANT_CONSOLE_POOL_SIZE: must be a whole number of connections from 1 to 100, not "ten"'],
      [['--pool-size', '4'], { MERCHANT_CONSOLE_DATABASE_URL: '' }, '--pool-size: only with PostgreSQL (--database-url); the SQLite store has no connection pool'],
    ] as const) {
      const refused = await serveRefused([...args], env);
      expect(refused, args.join(' ')).toEqual({ code: 2, error: message });
    }
  }, 120_000);

  it('instances starting at once on a fresh database agree on one check value; of several keys only one gets in', async () => {
    // Two serve processes, one key, an empty database: both migrate-or-wait, both start, one check value.
    const url = await freshPostgresDatabase({ empty: true });
    const key = keyFile();
    const both = await Promise.all([0, 1].map(() => startServeChild(tempDir(), { args: ['--database-url', url, '--master-key-file', key] })));
    for (const child of both) await child.stop();
    expect(await keyChecks(url)).toHaveLength(1);

    // Four instances with four keys, each having found no check value yet (held until all four have looked):
    // the first check value written wins, the other three refuse to start.
    const raced = await freshPostgresDatabase();
    const store = await openStore({ kind: 'postgres', url: raced, poolSize: 4 });
    try {
      let looked = 0;
      let allLooked: () => void;
      const barrier = new Promise<void>((resolve) => (allLooked = resolve));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 4 }, () => {
          let first = true;
          const held: Store = {
            ...store,
            read: async (fn) => {
              const value = await store.read(fn);
              if (first) {
                first = false;
                if (++looked === 4) allLooked();
                await barrier;
              }
              return value;
            },
          };
          return verifyMasterKey(held, createSecretBox(randomBytes(32)), createRepositories());
        }),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual([
        expect.any(MasterKeyMismatchError),
        expect.any(MasterKeyMismatchError),
        expect.any(MasterKeyMismatchError),
      ]);
    } finally {
      await store.close();
    }
    expect(await keyChecks(raced)).toHaveLength(1);
  }, 120_000);
});
