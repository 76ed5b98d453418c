import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database';
import { SAFETY_NET_FRAMES, startCheckpointer } from '../../../src-main/store/checkpointer';
import { tempDir } from '../../support/temp-dir';

describe('checkpointer (WAL checkpoints on a worker thread)', () => {
  it('moves committed WAL frames into the database file while the main connection keeps writing, and stops cleanly', async () => {
    const db = openDatabase(path.join(tempDir(), 'db.sqlite'));
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const file = db.name;
    const sizeBefore = fs.statSync(file).size;
    const checkpointer = startCheckpointer(db, { intervalMs: 10 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(SAFETY_NET_FRAMES);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(500));
    // The main connection's threshold is far away, so only the worker can have
    // copied the rows from the WAL into the database file.
    const until = Date.now() + 10_000;
    while (fs.statSync(file).size < sizeBefore + 80_000) {
      if (Date.now() > until) throw new Error('the worker never checkpointed');
      await new Promise((r) => setTimeout(r, 20));
    }
    const ran = await checkpointer.stop();
    expect(ran).toBeGreaterThan(0);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBeGreaterThanOrEqual(200);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
