/**
 * Storage failures in words an operator can act on, and as the HTTP answer
 * (503, code 5031: nothing was stored): SQLite codes, file system errnos, and
 * the SQLite store's own batch failures (a batch undone under its units).
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, httpStatusOf } from '../../../src-shared/errors';
import { toAppError } from '../../../src-main/http/errors';
import { storageProblemOf } from '../../../src-main/store/storage-errors';
import { StoreError } from '../../../src-main/store/store';

describe('storage problems', () => {
  it('names SQLite codes, errnos and the store’s undone batches; anything else is not one', () => {
    const cases: [string, string | undefined][] = [
      ['SQLITE_FULL', 'full'],
      ['ENOSPC', 'no-space'],
      ['SQLITE_READONLY_DBMOVED', 'read-only'],
      ['SQLITE_IOERR_FSYNC', 'io'],
      ['SQLITE_BUSY', 'busy'],
      ['BATCH_ROLLED_BACK', 'rolled-back'],
      ['BATCH_ABORTED', 'aborted'],
      ['SNAPSHOT_LOST', 'read-lost'],
      ['WRITE_NOT_LAST', undefined],
      ['SQLITE_CONSTRAINT_UNIQUE', undefined],
    ];
    for (const [code, problem] of cases) expect(storageProblemOf(Object.assign(new Error('x'), { code })), code).toBe(problem);
  });

  it('answers a batch undone under a request with 503 and 5031, saying why and that nothing was stored, never with a 500', () => {
    for (const [code, words] of [
      ['BATCH_ABORTED', /another request sharing the same commit failed/],
      ['BATCH_ROLLED_BACK', /rolled the commit back after a disk or I\/O error/],
      ['SNAPSHOT_LOST', /ended a read after a disk or I\/O error/],
    ] as const) {
      const answer = toAppError(new StoreError('storage', code, 'internal detail'));
      expect(answer.code).toBe(ErrorCode.STORAGE_UNAVAILABLE);
      expect(httpStatusOf(answer.code)).toBe(503);
      expect(answer.message).toMatch(words);
      expect(answer.message).toMatch(/nothing was stored, try again later/);
      expect(answer.message).not.toContain('internal detail');
    }
  });
});
