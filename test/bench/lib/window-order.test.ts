import { describe, expect, it } from 'vitest';
import { windowOrder } from '../../../bench/lib/window-order';

describe('windowOrder', () => {
  it('lists the targets as given in odd rounds and reversed in even ones', () => {
    const targets = ['serve', 'wal-sync', 'pipelined'];
    expect([1, 2, 3, 4].map((round) => windowOrder(targets, round).join(' '))).toEqual([
      'serve wal-sync pipelined',
      'pipelined wal-sync serve',
      'serve wal-sync pipelined',
      'pipelined wal-sync serve',
    ]);
  });

  it('puts every target first and last equally often over an even number of rounds', () => {
    const targets = ['a', 'b', 'c'];
    const firsts = new Map<string, number>();
    const lasts = new Map<string, number>();
    for (let round = 1; round <= 10; round++) {
      const order = windowOrder(targets, round);
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
      lasts.set(order.at(-1)!, (lasts.get(order.at(-1)!) ?? 0) + 1);
    }
    expect(Object.fromEntries(firsts)).toEqual({ a: 5, c: 5 });
    expect(Object.fromEntries(lasts)).toEqual({ c: 5, a: 5 });
  });

  it('leaves the list it was given as it was', () => {
    const targets = ['a', 'b'];
    windowOrder(targets, 2);
    expect(targets).toEqual(['a', 'b']);
  });
});
