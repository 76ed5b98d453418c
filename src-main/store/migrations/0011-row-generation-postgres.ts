import type { Migration } from './index';
import { ROW_GENERATION_TABLES } from './0010-row-generation';

/** PostgreSQL: the trigger of each table (one per statement); the PostgreSQL store refuses to open without them. */
export const POSTGRES_ROW_GENERATION_TRIGGERS: readonly { table: string; name: string }[] = ROW_GENERATION_TABLES.map((table) => ({
  table,
  name: `${table}_row_generation`,
}));

/** 16 hex digits, as SQLite's (randomblob(8)): 64 bits of a random UUID's SHA-256 (md5 fails on a FIPS-mode server). */
export const NEW_POSTGRES_GENERATION = "left(encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), 16)";

/** pg_trigger.tgtype of the triggers: per statement, AFTER, on INSERT (4), DELETE (8), UPDATE (16) and TRUNCATE (32). */
export const POSTGRES_ROW_GENERATION_TRIGGER_TYPE = 4 + 8 + 16 + 32;

/**
 * PostgreSQL gets migration 0010's row generation too: one row whose
 * `generation` every statement that inserts, updates, deletes or truncates
 * merchants, merchant_channels or channels replaces (a statement-level
 * trigger, in that statement's transaction: whoever runs it, whichever
 * instance; once per statement, so a bulk copy of merchants does not update
 * the one row once per merchant, and a statement that changed no row
 * replaces it too, which only costs every cached entry one read again).
 * Cached merchants and links are checked against it instead of their rows'
 * xmin: one primary-key read per request instead of a join of three tables
 * (docs/decisions.md, "Hot path"). The value is random for the reason 0010
 * gives (a rolled-back change must not come back). ENABLE ALWAYS: the
 * triggers fire in a session with session_replication_role = replica too
 * (a bulk load, a logical replication apply), which skips ordinary ones.
 *
 * SQLite: nothing (0010 made it).
 */
export const migration0011RowGenerationPostgres: Migration = {
  version: 11,
  name: 'PostgreSQL: the row generation of the rows requests are checked against from a cache',
  schema: {
    sqlite: '-- nothing: migration 0010 made the row generation on SQLite',
    postgres: `
      CREATE TABLE row_generation (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation TEXT COLLATE "C" NOT NULL
      );
      INSERT INTO row_generation (id, generation) VALUES (1, ${NEW_POSTGRES_GENERATION});
      -- The row of the schema whose table fired, whatever the changing session's search_path (a data-only
      -- pg_restore runs with an empty one; another schema's row_generation must not be the one replaced).
      CREATE FUNCTION row_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          EXECUTE format('UPDATE %I.row_generation SET generation = $1 WHERE id = 1', TG_TABLE_SCHEMA)
            USING ${NEW_POSTGRES_GENERATION};
          RETURN NULL;
        END
      $$;
${POSTGRES_ROW_GENERATION_TRIGGERS.map(
  ({ table, name }) =>
    `      CREATE TRIGGER ${name} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION row_generation_bump();
      ALTER TABLE ${table} ENABLE ALWAYS TRIGGER ${name};`,
).join('\n')}
`,
  },
};
