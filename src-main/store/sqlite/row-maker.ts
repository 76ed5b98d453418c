/**
 * Rows as plain objects, made in JavaScript from better-sqlite3's raw rows
 * (arrays of column values).
 *
 * Why: better-sqlite3 builds each row object in C++, one property at a time,
 * by a column name it makes (and V8 interns) again for every cell. On the list
 * page (20 rows of 10 columns) that was 48 µs of the query's 76; as raw
 * arrays turned into objects by a function compiled once per statement (one
 * object literal: every row of a statement has one shape) 28 µs
 * (docs/benchmarks.md, "Answers with JSON.stringify, rows from raw arrays").
 */

export type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * The function that turns a statement's raw row into the object
 * better-sqlite3 would have made: the same own properties in the same order,
 * a name given twice holding the later column's value (better-sqlite3 sets
 * the members in column order; a literal's later duplicate wins in the
 * first one's place). Undefined for a statement with a column named
 * `__proto__`: a literal sets the prototype with it, while better-sqlite3
 * makes an own member on Node 22 and later (and sets the prototype on
 * Node 20); such a statement keeps better-sqlite3's objects.
 */
export function rowMaker(columnNames: readonly string[]): RowMaker | undefined {
  if (columnNames.includes('__proto__')) return undefined;
  // The names come from SQLite (the statement's columns, or the file's schema for `*`); JSON.stringify makes each a
  // string key, whatever it holds.
  const members = columnNames.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // Compiled once per statement, from its column names only.
  return new Function('v', `return { ${members} };`) as RowMaker;
}
