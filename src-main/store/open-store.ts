/** Opens the store a configuration names: SQLite (a file) or PostgreSQL (a URL). */
import { openPostgresStore } from './postgres/postgres-store';
import { openSqliteStore } from './sqlite/sqlite-store';
import type { Store } from './store';

export type StoreConfig =
  | { kind: 'sqlite'; file: string; nativeBinding?: string | undefined; targetVersion?: number }
  | { kind: 'postgres'; url: string; poolSize?: number | undefined; targetVersion?: number };

export const DATABASE_URL_ENV = 'MERCHANT_CONSOLE_DATABASE_URL';

/** A database URL as given (flag or environment), checked: only postgres:// and postgresql:// are known. */
export function checkDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('database URL must look like postgres://user:password@host:5432/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`database URL must start with postgres:// (got ${parsed.protocol}//); without one, the data dir's SQLite file is used`);
  }
  return url;
}

export function openStore(config: StoreConfig): Promise<Store> {
  if (config.kind === 'postgres') {
    return openPostgresStore({
      url: config.url,
      ...(config.poolSize !== undefined ? { poolSize: config.poolSize } : {}),
      ...(config.targetVersion !== undefined ? { targetVersion: config.targetVersion } : {}),
    });
  }
  return openSqliteStore({
    file: config.file,
    nativeBinding: config.nativeBinding,
    ...(config.targetVersion !== undefined ? { targetVersion: config.targetVersion } : {}),
  });
}
