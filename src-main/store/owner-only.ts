/**
 * Files of the data dir are readable by their owner only (0600): the database
 * holds pay tokens and sealed secrets, and `--data-dir` may name an existing
 * folder that others can list (0755), so the folder's own 0700 is not enough.
 */
import fs from 'node:fs';

/** What SQLite writes beside a database file. */
const SQLITE_SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * Creates `file` (empty) with mode 0600 unless it exists, and narrows an
 * existing one (an older version made them 0644). Created before SQLite opens
 * it, a database gets owner-only -wal, -shm and -journal files too: SQLite
 * gives them its database file's mode; existing ones are narrowed here.
 */
export function ensureOwnerOnly(file: string, { sqlite = false } = {}): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  narrow(file);
  if (sqlite) for (const suffix of SQLITE_SIDECARS) if (fs.existsSync(file + suffix)) narrow(file + suffix);
}

function narrow(file: string): void {
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    fs.chmodSync(file, mode & 0o700);
  } catch (err) {
    // A file system without Unix modes (a FAT or SMB mount) cannot narrow them; it has none to narrow.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP') throw err;
  }
}

/** Writes a small file whole, owner-only (0600): a temporary file renamed over it, so a crash leaves the old or the new content. */
export function writeOwnerOnlyFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
