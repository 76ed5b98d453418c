import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion, SchemaTooNewError } from '../../../src-main/store/database';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../../src-main/store/migrations/index';
import { tempDir } from '../../support/temp-dir';

/** The schema as SQLite reports it, for comparing two databases. */
function schemaOf(db: BetterSqlite3.Database): string[] {
  return (db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as {
    type: string;
    name: string;
    sql: string | null;
  }[]).map((r) => `${r.type} ${r.name}: ${(r.sql ?? '').replace(/\s+/g, ' ')}`);
}

describe('openDatabase', () => {
  it('sets WAL, synchronous=FULL and foreign keys, and migrates an empty file to the latest version', () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL: every commit is fsynced
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });

  it('migrates from every earlier version to the same schema as a fresh file, keeping data', () => {
    const dir = tempDir();
    const fresh = openDatabase(path.join(dir, 'fresh.sqlite'));
    const expected = schemaOf(fresh);
    fresh.close();

    // Every version a user may have, the latest included (opening it again must change nothing).
    for (const m of MIGRATIONS) {
      const file = path.join(dir, `from-v${m.version}.sqlite`);
      const old = openDatabase(file, { targetVersion: m.version });
      expect(schemaVersion(old)).toBe(m.version);
      // A merchant exists in every version since 1 and must survive every later migration.
      old.prepare(
        "INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, enabled, createtime, updatetime) VALUES ('Old', 'mk_old', 'v1:x', 'md5', 1, 1, 1)",
      ).run();
      old.close();
      const upgraded = openDatabase(file);
      expect(schemaVersion(upgraded)).toBe(LATEST_SCHEMA_VERSION);
      expect(schemaOf(upgraded)).toEqual(expected);
      expect(upgraded.prepare("SELECT name, sign_type FROM merchants WHERE api_key = 'mk_old'").get()).toEqual({ name: 'Old', sign_type: 'md5' });
      upgraded.close();
    }
  });

  it('applies each migration once, atomically: a failing migration leaves the previous version', () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = new BetterSqlite3(file);
    const broken = [
      ...MIGRATIONS,
      {
        version: LATEST_SCHEMA_VERSION + 1,
        name: 'broken',
        up(d: BetterSqlite3.Database) {
          d.exec('CREATE TABLE half_done (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => migrate(db, broken, LATEST_SCHEMA_VERSION + 1)).toThrow('boom');
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    // Running again at the latest version is a no-op.
    migrate(db, MIGRATIONS, LATEST_SCHEMA_VERSION);
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });

  it('refuses a file written by a newer program', () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 5}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(SchemaTooNewError);
  });

  it('gives a clear error for a data file that is not a database', () => {
    const file = path.join(tempDir(), 'db.sqlite');
    fs.writeFileSync(file, 'this is not sqlite'.repeat(100));
    expect(() => openDatabase(file)).toThrow(/not a database/);
  });

  it('enforces the schema rules the services rely on', () => {
    const db = openDatabase(path.join(tempDir(), 'db.sqlite'));
    expect(() =>
      db.prepare("INSERT INTO channels (category, name, pay_method, min_amount, max_amount, createtime, updatetime) VALUES ('delta', 'x', 'bank', 1, 2, 1, 1)").run(),
    ).toThrow(/CHECK constraint/);
    expect(() => db.prepare("INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (99, 99, 1)").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });
});
