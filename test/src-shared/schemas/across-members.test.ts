import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acrossMembers, timeRangeInOrder } from '../../../src-shared/schemas/across-members';
import { orderQueryListBody } from '../../../src-shared/schemas/merchant-api';
import { refusalMessage as message } from '../../support/schema-refusal';

describe('acrossMembers', () => {
  const range = z.strictObject({ start_time: z.int().optional(), end_time: z.int().optional() }).check(timeRangeInOrder);

  it('refuses start_time after end_time on end_time, and accepts equal bounds or either bound alone', () => {
    expect(message(range, { start_time: 5, end_time: 4 })).toBe('end_time: must not be before start_time');
    expect(message(range, { start_time: 5, end_time: 5 })).toBe('ok');
    expect(message(range, { start_time: 5 })).toBe('ok');
    expect(message(range, { end_time: 4 })).toBe('ok');
  });

  it('reports every problem a rule finds, each on its member, and the checks after it still run', () => {
    const schema = z
      .strictObject({ a: z.int(), b: z.int(), c: z.int() })
      .check(acrossMembers((v) => (v.a > v.b ? [['b', 'must not be below a'], ['a', 'must not be above b']] : undefined)))
      .check(acrossMembers((v) => (v.c === 0 ? [['c', 'must not be 0']] : undefined)));
    const result = schema.safeParse({ a: 2, b: 1, c: 0 });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['b', 'must not be below a'],
      ['a', 'must not be above b'],
      ['c', 'must not be 0'],
    ]);
    expect(schema.safeParse({ a: 1, b: 2, c: 3 }).success).toBe(true);
  });
});

/**
 * Bytes a child process promotes to the old generation while it validates
 * 200,000 orderQueryList bodies (after 50,000 unmeasured), from V8's GC trace
 * (`promoted=` of each young collection). With superRefine (a closure per
 * checked value), Node 24 kept each body past young collections (how, not
 * traced): the old generation grew with every request
 * (docs/benchmarks.md, "Morning of 2026-11-30"). Measured with superRefine put
 * back: 69,856,016 bytes promoted under Node 24 against 7,768 for the members
 * alone (this test fails); Node 20 kept nothing either way, Node 22 was not
 * measured. CI runs this file under Node 24 too.
 */
function promotedWhileValidating(schema: 'orderQueryListBody' | 'its members alone'): { promoted: number; valid: boolean } {
  const script = `
    const { orderQueryListBody } = await import(${JSON.stringify(path.resolve('src-shared/schemas/merchant-api.ts'))});
    const { z } = await import('zod');
    const schema = ${schema === 'orderQueryListBody' ? 'orderQueryListBody' : 'z.strictObject(orderQueryListBody.shape)'};
    const body = (i) => JSON.parse(JSON.stringify({
      api_key: 'mk_' + 'k'.repeat(40), timestamp: 1700000000 + (i % 60), nonce: 'n' + i.toString(36).padStart(23, '0'),
      signature: 's'.repeat(64), status: 'paid', order_type: 1, start_time: 1690000000 + i, end_time: 1699000000,
    }));
    let valid = true;
    for (let i = 0; i < 50_000; i++) valid = schema.safeParse(body(i)).success && valid;
    console.log('measured from here');
    for (let i = 0; i < 200_000; i++) valid = schema.safeParse(body(i)).success && valid;
    console.log(JSON.stringify({ valid }));
  `;
  const out = execFileSync(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const measured = out.slice(out.indexOf('measured from here'));
  let promoted = 0;
  for (const line of measured.split('\n')) {
    // Young collections only (the scavenger, or the young mark-sweep where a V8 uses it).
    if (!/ gc=(s|mms) /.test(line)) continue;
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  // GC trace lines may follow the result line.
  const result = measured.split('\n').find((line) => line.startsWith('{"valid"'));
  return { promoted, valid: result !== undefined && (JSON.parse(result) as { valid: boolean }).valid };
}

describe('orderQueryList validation and the old generation', () => {
  it('keeps no more of the bodies it validated past young collections than its members alone do', () => {
    const members = promotedWhileValidating('its members alone');
    const list = promotedWhileValidating('orderQueryListBody');
    expect(members.valid).toBe(true);
    expect(list.valid).toBe(true);
    // With superRefine, Node 24 promoted tens of megabytes here (about what the young generation held at each
    // collection); without it, about as little as the members alone.
    console.log(`promoted: members alone ${members.promoted}, orderQueryListBody ${list.promoted}`);
    expect(list.promoted).toBeLessThan(members.promoted * 2 + 2_000_000);
  }, 120_000);

  it('still refuses start_time after end_time (the rule the check carries)', () => {
    const auth = { api_key: 'mk_x', timestamp: 1, nonce: 'abcdefgh', signature: 'S' };
    expect(message(orderQueryListBody, { ...auth, start_time: 10, end_time: 9 })).toBe('end_time: must not be before start_time');
  });
});
