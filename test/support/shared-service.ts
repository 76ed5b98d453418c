/**
 * One service for a whole test file (beforeAll/afterAll), on the current
 * engine. testService() cannot serve there: its service is closed, and on
 * PostgreSQL its database emptied, and tempDir() removed, after every test.
 * This one gets a data dir, and on PostgreSQL a database copied from the
 * migrated template, that only its own close removes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openService, type MerchantConsoleService, type ServiceOptions } from '../../src-main/service';
import { postgresAdminUrl, TEST_ENGINE } from './test-engine';

let counter = 0;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function urlOf(database: string): string {
  const url = new URL(postgresAdminUrl());
  url.pathname = `/${database}`;
  return url.href;
}

/** Opens a service on a fresh store for the file; `close` closes it, removes its data dir and drops its PostgreSQL database. */
export async function openSharedService(options: Omit<Partial<ServiceOptions>, 'dataDir' | 'databaseUrl'> & { dirPrefix?: string } = {}): Promise<MerchantConsoleService> {
  const { dirPrefix = 'mc-shared-', ...serviceOptions } = options;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
  let database: string | undefined;
  let service: MerchantConsoleService;
  try {
    if (TEST_ENGINE === 'postgres') {
      const name = `mc_shared_${process.pid}_${Date.now().toString(36)}_${++counter}`;
      await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')} STRATEGY FILE_COPY`));
      database = name;
    }
    service = await openService({ ...serviceOptions, dataDir, ...(database ? { databaseUrl: urlOf(database) } : {}) });
  } catch (err) {
    await removeAll(dataDir, database);
    throw err;
  }
  const close = service.close.bind(service);
  let closed: Promise<void> | undefined;
  service.close = () =>
    (closed ??= (async () => {
      await close();
      await removeAll(dataDir, database);
    })());
  return service;
}

async function removeAll(dataDir: string, database: string | undefined): Promise<void> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  const name = database;
  if (name) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
