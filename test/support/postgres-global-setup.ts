/**
 * The PostgreSQL server of the tests: $MERCHANT_CONSOLE_TEST_DATABASE_URL
 * when set (a server you run; its user must be allowed to create
 * databases), else a throwaway server in a temp dir on a free port
 * (scripts/temp-postgres.ts), removed afterwards. A template database is
 * migrated once; every test copies it. The throwaway server runs without
 * fsync: the tests kill `serve` processes, never the database server, so
 * its own durability is not what they test, and creating and dropping a
 * database per test is then quick (the benchmarks' server keeps fsync on).
 */
import type { TestProject } from 'vitest/node';
import { startTempPostgres, type TempPostgres } from '../../scripts/temp-postgres';
import { openPostgresStore } from '../../src-main/store/postgres/postgres-store';
import pg from 'pg';

const TEMPLATE = `mc_template_${process.pid}`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: TempPostgres | undefined;
  let adminUrl = process.env.MERCHANT_CONSOLE_TEST_DATABASE_URL;
  if (!adminUrl) {
    server = await startTempPostgres({ settings: { max_connections: '400', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } });
    adminUrl = server.url;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE} TEMPLATE template0`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE}`;
  const store = await openPostgresStore({ url: templateUrl.href, poolSize: 1 });
  await store.close();
  project.provide('postgresAdminUrl', adminUrl);
  project.provide('postgresTemplate', TEMPLATE);
  return async () => {
    if (server) {
      server.stop();
      return;
    }
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await c.end();
  };
}
