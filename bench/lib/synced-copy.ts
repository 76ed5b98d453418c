/**
 * Copies of the seeded data, on disk before anything is measured. A copy
 * left in the page cache (1 GB per copy of the 1,000,000-order SQLite file,
 * 2 GB dirty per copy of the PostgreSQL cluster) is written back by the
 * kernel about 30 s later, during a round, where it slows the fsyncs of
 * whichever target runs then (docs/benchmarks.md, "The machine").
 */
import fs from 'node:fs';
import path from 'node:path';

/** fsync of every file and directory under `target` (or of `target` itself, a file). */
export function syncTree(target: string): void {
  if (fs.statSync(target).isDirectory()) {
    for (const entry of fs.readdirSync(target)) syncTree(path.join(target, entry));
  }
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
