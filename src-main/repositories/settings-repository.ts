import type { ReadTx, WriteTx } from '../store/store';

/** Small key → JSON value store for service settings. */
export function createSettingsRepository() {
  return {
    async get<T>(tx: ReadTx, key: string): Promise<T | undefined> {
      const row = await tx.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set(tx: WriteTx, key: string, value: unknown): Promise<void> {
      await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, JSON.stringify(value)]);
    },
    /** Sets the value only when the key is absent; false when it was there. */
    async setIfAbsent(tx: WriteTx, key: string, value: unknown): Promise<boolean> {
      return (await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, JSON.stringify(value)])) === 1;
    },
    async remove(tx: WriteTx, key: string): Promise<void> {
      await tx.run('DELETE FROM settings WHERE key = ?', [key]);
    },
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
