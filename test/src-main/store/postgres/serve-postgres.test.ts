/**
 * `serve` and the admin commands on PostgreSQL: selected by --database-url
 * or $MERCHANT_CONSOLE_DATABASE_URL; bad configuration and a master key that
 * does not match the database's are refused with a clear message and a
 * non-zero exit before anything listens.
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
import pg from 'pg';

function keyFile(): string {
  const file = path.join(tempDir(), 'team.key');
  fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  return file;
}

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
});
