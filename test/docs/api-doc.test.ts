/**
 * docs/api.md's error table is the documented contract: it must list every
 * code the service can answer with, with the HTTP status the code maps to.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode, httpStatusOf } from '../../src-shared/errors';

describe('docs/api.md', () => {
  it('documents every error code with its HTTP status', () => {
    const doc = fs.readFileSync('docs/api.md', 'utf8');
    const rows = [...doc.matchAll(/^\| (\d{4}) \| (\d{3}) \|/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    const documented = new Map(rows as [number, number][]);
    for (const code of Object.values(ErrorCode)) {
      expect(documented.get(code), `code ${code} missing from docs/api.md`).toBe(httpStatusOf(code));
    }
    expect(documented.size).toBe(Object.values(ErrorCode).length);
  });
});
