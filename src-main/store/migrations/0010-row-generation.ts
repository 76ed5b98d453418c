import type { Migration } from './index';

/** The tables whose rows a request may be checked against from a cache (request-auth and channel services). */
export const ROW_GENERATION_TABLES = ['merchants', 'merchant_channels', 'channels'] as const;
const EVENTS = ['INSERT', 'UPDATE', 'DELETE'] as const;

/** A value no earlier state of the file had (a counter would come back after a rollback). */
const NEW_GENERATION = 'lower(hex(randomblob(8)))';

/** The names of the triggers; the SQLite store refuses to open a file at this version or later without them. */
export const ROW_GENERATION_TRIGGERS: readonly string[] = ROW_GENERATION_TABLES.flatMap((table) => EVENTS.map((event) => `${table}_${event.toLowerCase()}_generation`));

/**
 * Why a store's row generation cannot be trusted (a trigger or the row is
 * missing), or undefined: both engines refuse to open such a store rather
 * than serve requests from rows cached against it.
 */
export function incompleteRowGeneration(missingTriggers: readonly string[], rowPresent: boolean): string | undefined {
  if (missingTriggers.length === 0 && rowPresent) return undefined;
  const what = missingTriggers.length > 0 ? `trigger${missingTriggers.length === 1 ? '' : 's'} ${missingTriggers.join(', ')} missing` : 'its row is missing';
  return `the database's row generation is incomplete (${what}): a migration left it so; nothing was served`;
}

/**
 * SQLite: the triggers of one table. A later migration that rebuilds one of
 * ROW_GENERATION_TABLES (which drops its triggers) runs this again.
 */
export function rowGenerationTriggersSql(table: (typeof ROW_GENERATION_TABLES)[number]): string {
  return EVENTS.map(
    (event) => `      CREATE TRIGGER ${table}_${event.toLowerCase()}_generation AFTER ${event} ON ${table} BEGIN
        UPDATE row_generation SET generation = ${NEW_GENERATION} WHERE id = 1;
      END;`,
  ).join('\n');
}

/**
 * SQLite's row generation (PostgreSQL's since migration 0011): one row whose
 * `generation` every change to a merchant, a merchant's link to a channel
 * or a channel replaces, whichever connection or process makes it (an
 * admin command, the sqlite3 shell). A request checked against cached rows
 * is written only while the generation is the one read with them
 * (docs/decisions.md, "Hot path"). Random, not counted up: a batch that
 * changed a row and was rolled back must not leave a generation that a
 * later change could reach again.
 *
 * PostgreSQL: nothing here. Its statements checked the rows' own versions
 * (xmin) until migration 0011 gave it the same row generation. On both
 * engines the table is the engine's bookkeeping, like PostgreSQL's
 * schema_migrations: db copy leaves it out.
 */
export const migration0010RowGeneration: Migration = {
  version: 10,
  name: 'SQLite: a generation of the rows requests are checked against from a cache',
  schema: {
    sqlite: `
      CREATE TABLE row_generation (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation TEXT NOT NULL
      );
      INSERT INTO row_generation (id, generation) VALUES (1, ${NEW_GENERATION});
${ROW_GENERATION_TABLES.map(rowGenerationTriggersSql).join('\n')}
`,
    // A comment only, kept as it was applied (migration 0011 adds the row generation on PostgreSQL).
    postgres: '-- nothing: PostgreSQL checks the rows\' own versions (xmin)',
  },
};
