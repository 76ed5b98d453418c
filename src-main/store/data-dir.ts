/**
 * Where the service keeps its files, and the one-service-per-data-dir lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ensureOwnerOnly } from './owner-only';

export const APP_DIR_NAME = 'merchant-console';
export const DATA_DIR_ENV = 'MERCHANT_CONSOLE_DATA_DIR';
export const DATABASE_FILE = 'merchant-console.sqlite';

/**
 * The OS user-data dir for merchant-console: the same folder Electron's
 * app.getPath('userData') gives the desktop app, so `serve` and the desktop
 * find the same data by default.
 */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return path.posix.join(env.XDG_CONFIG_HOME ?? path.posix.join(home, '.config'), APP_DIR_NAME);
}

/** `--data-dir`, else $MERCHANT_CONSOLE_DATA_DIR, else the OS user-data dir. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env[DATA_DIR_ENV] || undefined) ?? defaultDataDir(process.platform, env);
  return path.resolve(chosen);
}

export function ensureDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    // A recursive mkdir under a read-only mount reports ENOENT; name the real cause.
    let parent = path.dirname(dir);
    while (!fs.existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
    fs.accessSync(parent, fs.constants.W_OK);
    throw err;
  }
  // Fail early and clearly on a read-only dir rather than deep inside SQLite.
  fs.accessSync(dir, fs.constants.W_OK);
}

export function databasePath(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: ServeInfo | null,
  ) {
    const who = holder ? ` (pid ${holder.pid}${holder.url ? `, listening on ${holder.url}` : ''})` : '';
    super(`another merchant-console service${who} is already running on data dir ${dataDir}; stop it or use a different --data-dir`);
    this.name = 'DataDirLockedError';
  }
}

export interface ServeInfo {
  pid: number;
  url: string | null;
  /** Where browsers reach it when it sits behind a proxy (`serve --public-url`). */
  publicUrl?: string | null;
  startedAt: number;
}

export interface DataDirLock {
  /** Records where this service listens, for the message a second one prints. */
  describe(info: Omit<ServeInfo, 'pid' | 'startedAt'>): void;
  release(): void;
}

const LOCK_FILE = 'service.lock';
const INFO_FILE = 'service.json';

/**
 * Takes the data dir's service lock: an exclusive SQLite lock on a small
 * side file, held for the life of the process. The OS drops it when the
 * process dies, even by kill -9, so there is never a stale lock to clean up.
 */
export function acquireDataDirLock(dataDir: string, options: { nativeBinding?: string } = {}): DataDirLock {
  ensureDataDir(dataDir);
  const infoPath = path.join(dataDir, INFO_FILE);
  const lockPath = path.join(dataDir, LOCK_FILE);
  ensureOwnerOnly(lockPath, { sqlite: true });
  // The desktop passes the Electron build of better-sqlite3 (see src-main/desktop/native-binding.ts).
  const db = new BetterSqlite3(lockPath, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirLockedError(dataDir, readServeInfo(infoPath));
    throw err;
  }
  // Ours now: one left behind by a crash of an older version is narrowed before it is rewritten.
  if (fs.existsSync(infoPath)) ensureOwnerOnly(infoPath);
  const startedAt = Math.floor(Date.now() / 1000);
  const write = (url: string | null, publicUrl: string | null = null) =>
    fs.writeFileSync(infoPath, JSON.stringify({ pid: process.pid, url, publicUrl, startedAt } satisfies ServeInfo), { mode: 0o600 });
  write(null);
  let released = false;
  return {
    describe(info) {
      write(info.url, info.publicUrl ?? null);
    },
    release() {
      if (released) return;
      released = true;
      try {
        fs.rmSync(infoPath, { force: true });
      } finally {
        db.exec('COMMIT');
        db.close();
      }
    },
  };
}

function readServeInfo(file: string): ServeInfo | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ServeInfo;
  } catch {
    return null;
  }
}

/**
 * What the service running on this data dir wrote about itself (pid, URL),
 * or null when none runs (no file, or its process is gone after a crash).
 */
export function runningServiceInfo(dataDir: string): ServeInfo | null {
  const info = readServeInfo(path.join(dataDir, INFO_FILE));
  if (!info || !Number.isInteger(info.pid)) return null;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still running.
    return (err as { code?: string }).code === 'EPERM' ? info : null;
  }
}
