import { describe, expect, it } from 'vitest';
import { bestVariant, median, ratioToLimit, type RoundFigure } from '../../../bench/lib/limit-ratio';

/** One target's figures, round 1 first. */
const rounds = (target: string, values: number[]): RoundFigure[] => values.map((value, i) => ({ target, round: i + 1, value }));

describe('ratioToLimit (the limit among several reference variants)', () => {
  it('judges against the fastest variant of each round, and gives beside it the ratio to the variant with the highest median', () => {
    const limits = [...rounds('wal-sync', [100, 90, 110]), ...rounds('pipelined', [95, 120, 96])];
    const r = ratioToLimit(rounds('serve', [80, 80, 80]), limits)!;
    // The fastest of each round: 100, 120, 110.
    expect(r.ratios).toEqual([0.8, 80 / 120, 80 / 110]);
    expect(r.ratio).toBeCloseTo(80 / 110, 12);
    expect(r.bestMedian.variant).toBe('wal-sync');
    expect(r.bestMedian.ratios).toEqual([0.8, 80 / 90, 80 / 110]);
    expect(r.bestMedian.ratio).toBe(0.8);
  });

  it('shows how the fastest of two draws of the same server raises the limit', () => {
    // The same reference twice (list-first: wal-sync and pipelined run the same code), its rounds scattered by ±5 %.
    const limits = [...rounds('wal-sync', [105, 95, 100]), ...rounds('pipelined', [95, 105, 100])];
    const r = ratioToLimit(rounds('serve', [90, 90, 90]), limits)!;
    expect(r.ratio).toBeCloseTo(90 / 105, 12);
    expect(r.bestMedian.ratio).toBeCloseTo(90 / 100, 12);
  });

  it('for CPU per request takes the lowest and gives limit / figure, so that above 1 is better too', () => {
    const limits = [...rounds('wal-sync', [120, 110, 130]), ...rounds('full', [100, 140, 105])];
    expect(bestVariant(limits, true)).toEqual({ variant: 'full', median: 105 });
    const r = ratioToLimit(rounds('serve', [125, 125, 125]), limits, true)!;
    expect(r.ratios).toEqual([100 / 125, 110 / 125, 105 / 125]);
    expect(r.ratio).toBe(105 / 125);
    expect(r.bestMedian).toEqual({ variant: 'full', ratio: 105 / 125, ratios: [100 / 125, 140 / 125, 105 / 125] });
  });

  it('leaves out rounds without a limit measurement, and gives nothing without a limit', () => {
    const limits = [...rounds('pool 5', [200, NaN, 220]), ...rounds('pool 10', [150, 160, 170])];
    const r = ratioToLimit(rounds('serve', [180, 180, 180, 180]), limits)!;
    expect(r.ratios).toEqual([0.9, 180 / 160, 180 / 220]);
    expect(r.bestMedian.variant).toBe('pool 5');
    expect(r.bestMedian.ratios).toEqual([0.9, 180 / 220]);
    expect(ratioToLimit(rounds('serve', [180]), [])).toBeUndefined();
    expect(ratioToLimit(rounds('serve', [180]), rounds('pool 5', [NaN]))).toBeUndefined();
  });

  it('takes the middle of an even count as the mean of the two middle values', () => {
    expect(median([3, 1, 4, 2])).toBe(2.5);
    expect(median([5])).toBe(5);
    expect(median([])).toBeNaN();
  });
});
