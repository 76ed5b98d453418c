/**
 * The store's SQL uses `@name` (bound from an object) or `?` (from an
 * array), as SQLite does; PostgreSQL wants `$1…$n`. Rewritten once per SQL
 * text and cached. Quoted text ('…', "…") and `::` casts are left alone.
 */
import type { SqlParams } from '../store';

export interface PgStatement {
  /** Name of the server-side prepared statement (one per SQL text, per connection). */
  name: string;
  text: string;
  values(params: SqlParams | undefined): unknown[];
}

const cache = new Map<string, PgStatement>();
let counter = 0;

export function toPgStatement(sql: string): PgStatement {
  let s = cache.get(sql);
  if (!s) {
    s = translate(sql);
    cache.set(sql, s);
  }
  return s;
}

function translate(sql: string): PgStatement {
  const names: string[] = [];
  let positional = 0;
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated quote in SQL: ${sql.slice(0, 80)}`);
      out += sql.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === '@') {
      const m = /^@([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i));
      if (m) {
        let index = names.indexOf(m[1]!);
        if (index < 0) index = names.push(m[1]!) - 1;
        out += `$${index + 1}`;
        i += m[0].length - 1;
        continue;
      }
    }
    if (c === '?') {
      positional++;
      out += `$${positional}`;
      continue;
    }
    out += c;
  }
  if (names.length > 0 && positional > 0) throw new Error(`SQL mixes @name and ? placeholders: ${sql.slice(0, 80)}`);
  const name = `mc${++counter}`;
  if (names.length > 0) {
    return {
      name,
      text: out,
      values(params) {
        if (params === undefined || Array.isArray(params)) throw new Error(`named parameters expected for: ${sql.slice(0, 80)}`);
        const obj = params as Readonly<Record<string, unknown>>;
        return names.map((n) => {
          const v = obj[n];
          if (v === undefined) throw new Error(`missing named parameter @${n}`);
          return v;
        });
      },
    };
  }
  return {
    name,
    text: out,
    values(params) {
      if (params === undefined) return [];
      if (!Array.isArray(params)) throw new Error(`positional parameters expected for: ${sql.slice(0, 80)}`);
      if (params.length !== positional) throw new Error(`expected ${positional} parameters, got ${params.length}`);
      return params as unknown[];
    },
  };
}
