/**
 * Storage failures in words an operator can act on: a full disk, a
 * read-only data dir, an I/O error, a database another process holds. Used
 * for HTTP answers (503, code 5031: nothing was stored) and CLI messages.
 */
export type StorageProblem = 'full' | 'read-only' | 'io' | 'corrupt' | 'busy' | 'no-space' | 'permission' | 'rolled-back' | 'aborted' | 'read-lost';

const SENTENCES: Record<StorageProblem, string> = {
  full: 'the disk holding the data dir is full',
  'no-space': 'the disk holding the data dir is full',
  'read-only': 'the data dir is read-only',
  permission: 'the data dir is not writable by this user',
  io: 'the disk reported an I/O error',
  corrupt: 'the database file is damaged (restore it from a backup)',
  busy: 'the database is locked by another process',
  'rolled-back': 'the database rolled the commit back after a disk or I/O error',
  aborted: 'another request sharing the same commit failed, which undid it',
  'read-lost': 'the database ended a read after a disk or I/O error',
};

/** What kind of storage failure `err` is, if it is one (SQLite codes and file system errnos). */
export function storageProblemOf(err: unknown): StorageProblem | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'no-space';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read-only';
  if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_CANTOPEN') return 'permission';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'corrupt';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'busy';
  // The SQLite store's batch, undone under its units (WriteOptions.writesLast).
  if (code === 'BATCH_ROLLED_BACK') return 'rolled-back';
  if (code === 'BATCH_ABORTED') return 'aborted';
  // The SQLite store's read snapshot, ended by SQLite under a read.
  if (code === 'SNAPSHOT_LOST') return 'read-lost';
  return undefined;
}

export function describeStorageProblem(problem: StorageProblem): string {
  return SENTENCES[problem];
}
