/**
 * PostgreSQL for `npm run bench -- --engine postgres`: a throwaway server
 * (the binaries scripts/temp-postgres.ts finds; fsync and
 * synchronous_commit left on, as a durable deployment runs) on a copy of a
 * seeded cluster.
 *
 * The seeded cluster is built once per seed key under the data root, next to
 * the SQLite template it comes from: initdb, the schema by the real
 * migrations and the template's rows loaded in bulk (./pg-bulk-copy.ts: `db
 * copy` is far too slow for 1,000,000 orders), ANALYZE, then a clean
 * shutdown. Every run starts a server on a fresh copy of that directory (cp
 * -a, synced to disk: ./synced-copy.ts), so runs never see each other's orders.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, postgresBinDir } from '../../scripts/temp-postgres';
import { syncTree } from './synced-copy';

export interface BenchPostgres {
  /** postgres://… of the seeded `bench` database. */
  url: string;
  port: number;
  dir: string;
  stop(): void;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
export const BENCH_DATABASE = 'bench';
const READY_FILE = 'bench-ready.json';

function requireBin(): string {
  const bin = postgresBinDir();
  if (!bin) throw new Error("--engine postgres: PostgreSQL server binaries not found (install Debian's postgresql package or set MERCHANT_CONSOLE_PG_BIN)");
  return bin;
}

/** Runs a server binary, as the postgres user when we are root (PostgreSQL refuses to run as root). */
function asServerUser(file: string, args: string[]): string {
  const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function settingsText(port: number, socketDir: string): string {
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${socketDir}'`,
    max_connections: '200',
    shared_buffers: "'256MB'",
    log_min_messages: 'warning',
    // Durable, as a team deployment runs: these are PostgreSQL's defaults, stated so no one turns them off here.
    fsync: 'on',
    synchronous_commit: 'on',
  };
  return Object.entries(settings).map(([k, v]) => `${k} = ${v}\n`).join('');
}

/** Starts a server on an existing cluster directory (its postgresql.auto.conf gets this run's port). */
async function startServer(clusterDir: string): Promise<BenchPostgres> {
  const bin = requireBin();
  const data = path.join(clusterDir, 'data');
  const port = await freePort();
  // postgresql.auto.conf is read last: this run's port and socket win over whatever the template had.
  fs.writeFileSync(path.join(data, 'postgresql.auto.conf'), settingsText(port, clusterDir));
  if (isRoot) execFileSync('chown', ['-R', 'postgres:', clusterDir]);
  try {
    asServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(clusterDir, 'server.log'), '-w', '-t', '120', 'start']);
  } catch (err) {
    const log = path.join(clusterDir, 'server.log');
    throw new Error(`could not start PostgreSQL on ${clusterDir}: ${(err as Error).message}${fs.existsSync(log) ? '\n' + fs.readFileSync(log, 'utf8').slice(-2000) : ''}`);
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${BENCH_DATABASE}`,
    port,
    dir: clusterDir,
    stop() {
      if (stopped) return;
      stopped = true;
      // fast: a clean shutdown with a checkpoint, so a template stays consistent.
      spawnSync(isRoot ? 'runuser' : path.join(bin, 'pg_ctl'), [...(isRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'fast', '-w', 'stop'], {
        stdio: 'ignore',
      });
    },
  };
}

/**
 * The seeded cluster for a SQLite template, built on first use (`copy` loads
 * the template into the fresh cluster's URL). Returns its directory.
 */
export async function preparePostgresTemplate(options: {
  dir: string;
  sqliteTemplateDir: string;
  copy: (url: string) => Promise<void>;
  log: (line: string) => void;
}): Promise<string> {
  if (fs.existsSync(path.join(options.dir, READY_FILE))) return options.dir;
  const bin = requireBin();
  fs.rmSync(options.dir, { recursive: true, force: true });
  fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  if (isRoot) execFileSync('chown', ['postgres:', options.dir]);
  asServerUser(path.join(bin, 'initdb'), ['-D', path.join(options.dir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const server = await startServer(options.dir);
  try {
    asServerUser(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', BENCH_DATABASE]);
    const started = Date.now();
    options.log(`loading ${path.basename(options.sqliteTemplateDir)} into PostgreSQL …`);
    await options.copy(server.url);
    // Statistics for the planner, as autovacuum would gather on a live database.
    asServerUser(path.join(bin, 'vacuumdb'), ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', '--analyze', BENCH_DATABASE]);
    const seconds = (Date.now() - started) / 1000;
    options.log(`copied and analysed in ${seconds.toFixed(0)} s`);
    fs.writeFileSync(path.join(options.dir, READY_FILE), JSON.stringify({ from: options.sqliteTemplateDir, seconds }));
  } finally {
    server.stop();
  }
  return options.dir;
}

/** A server on a fresh copy of a seeded cluster; stop() also removes the copy. */
export async function startPostgresCopy(templateDir: string, runDir: string): Promise<BenchPostgres> {
  fs.rmSync(runDir, { recursive: true, force: true });
  execFileSync('cp', ['-a', templateDir, runDir]);
  syncTree(runDir);
  const server = await startServer(runDir);
  return {
    ...server,
    stop() {
      server.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}
