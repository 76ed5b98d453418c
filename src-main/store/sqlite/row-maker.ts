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
 * first one's place).
 */
export function rowMaker(columnNames: readonly string[]): RowMaker {
  // The names are the statement's own (SQL text of this program); JSON.stringify makes each a safe literal key.
  const members = columnNames.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // Compiled once per statement, from its column names only.
  return new Function('v', `return { ${members} };`) as RowMaker;
}
