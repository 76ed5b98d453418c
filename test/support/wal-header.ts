import fs from 'node:fs';

/** The two salts of a database's WAL header (bytes 16-23): SQLite writes new ones whenever it starts the WAL over. */
export function walSalts(databaseFile: string): string {
  const fd = fs.openSync(`${databaseFile}-wal`, 'r');
  try {
    const salts = Buffer.alloc(8);
    fs.readSync(fd, salts, 0, 8, 16);
    return salts.toString('hex');
  } finally {
    fs.closeSync(fd);
  }
}
