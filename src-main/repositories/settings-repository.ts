import type { Database } from 'better-sqlite3';

/** Small key → JSON value store for service settings. */
export function createSettingsRepository(db: Database) {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const set = db.prepare<[string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const remove = db.prepare<[string]>('DELETE FROM settings WHERE key = ?');
  return {
    get<T>(key: string): T | undefined {
      const row = get.get(key);
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    set(key: string, value: unknown): void {
      set.run(key, JSON.stringify(value));
    },
    remove(key: string): void {
      remove.run(key);
    },
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
