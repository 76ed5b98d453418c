/**
 * A throwaway PostgreSQL server for tests and benchmarks: initdb in a temp
 * dir, listening on 127.0.0.1 on a free port (and a Unix socket in the same
 * dir), stopped and removed afterwards. Never touches another cluster.
 *
 * The server binaries come from $MERCHANT_CONSOLE_PG_BIN, else the newest
 * /usr/lib/postgresql/<major>/bin (Debian's postgresql package, which
 * .ci/run installs when missing), else the PATH. PostgreSQL refuses to run
 * as root: as root the server runs as the `postgres` user (runuser).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TempPostgres {
  /** postgres://… of the superuser `postgres` on the default database. */
  url: string;
  /** URL of another database on the same server. */
  urlOf(database: string): string;
  port: number;
  dir: string;
  stop(): void;
}

export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.MERCHANT_CONSOLE_PG_BIN) return env.MERCHANT_CONSOLE_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const majors = fs
      .readdirSync(root)
      .filter((d) => /^[0-9]+$/.test(d) && fs.existsSync(path.join(root, d, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return path.join(root, majors[0], 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return found.status === 0 ? path.dirname(found.stdout.trim()) : null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function asServerUser(bin: string, args: string[], options: { input?: string } = {}): string {
  const command = isRoot ? 'runuser' : bin;
  const argv = isRoot ? ['-u', 'postgres', '--', bin, ...args] : args;
  return execFileSync(command, argv, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], input: options.input ?? '' });
}

export interface TempPostgresOptions {
  /** Extra postgresql.conf lines. */
  settings?: Record<string, string>;
  port?: number;
}

export async function startTempPostgres(options: TempPostgresOptions = {}): Promise<TempPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found: install Debian\'s postgresql package or set MERCHANT_CONSOLE_PG_BIN');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mc-pg-'));
  if (isRoot) execFileSync('chown', ['postgres:', dir]);
  const data = path.join(dir, 'data');
  try {
    asServerUser(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const port = options.port ?? (await freePort());
    const settings: Record<string, string> = {
      listen_addresses: "'127.0.0.1'",
      port: String(port),
      unix_socket_directories: `'${dir}'`,
      max_connections: '200',
      shared_buffers: "'128MB'",
      log_min_messages: 'warning',
      ...options.settings,
    };
    fs.appendFileSync(path.join(data, 'postgresql.conf'), Object.entries(settings).map(([k, v]) => `${k} = ${v}\n`).join(''));
    asServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    let stopped = false;
    const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
    return {
      url: urlOf('postgres'),
      urlOf,
      port,
      dir,
      stop() {
        if (stopped) return;
        stopped = true;
        try {
          asServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    const log = path.join(dir, 'server.log');
    const detail = fs.existsSync(log) ? `\n${fs.readFileSync(log, 'utf8').slice(-2000)}` : '';
    const stderr = (err as { stderr?: string }).stderr ?? '';
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start a temporary PostgreSQL server: ${(err as Error).message}${stderr}${detail}`);
  }
}
