import { describe, expect, it } from 'vitest';
import { judgeTargets, ratioText, targetsMarkdown, type OpenLoopFigures, type TargetInputs, type Verdict } from '../../../bench/lib/targets';

const COMBINATIONS = 16;

/** One combination per p99, every request answered unless said. */
const rows = (generatorP99Ms: number[], serverP99Ms: (number | undefined)[] = []): OpenLoopFigures[] =>
  generatorP99Ms.map((g, i) => ({ generatorP99Ms: g, serverP99Ms: serverP99Ms[i], scheduled: 10_000, completed: 10_000, failures: 0 }));
const openLoop = (r: OpenLoopFigures[], rate = 1000) => ({ rate, combinations: COMBINATIONS, rows: r });
const fast = () => rows(Array.from({ length: COMBINATIONS }, (_, i) => 2 + i * 0.4));

/** A run that meets every target. */
const passing: TargetInputs = {
  orders: 1_000_000,
  createOrder: { ratio: 0.85, rounds: [0.84, 0.85, 0.9] },
  listFirst: { ratio: 0.82, rounds: [0.8, 0.82, 0.83] },
  createOrderLoopDelayP99Ms: 2.1,
  openLoop: openLoop(fast()),
  listeningMs: 478,
  idleRssMb: 99,
};

const verdictOf = (verdicts: Verdict[], starts: string) => {
  const found = verdicts.find((v) => v.target.startsWith(starts));
  if (!found) throw new Error(`no verdict for ${starts}`);
  return found;
};
const openLoopOf = (inputs: TargetInputs) => verdictOf(judgeTargets(inputs), 'orderQueryList p99');

describe('judgeTargets (issue 14 on one run of npm run bench)', () => {
  it('finds every target met by a run that meets them', () => {
    const verdicts = judgeTargets(passing);
    expect(verdicts).toHaveLength(6);
    expect(verdicts.map((v) => v.met)).toEqual([true, true, true, true, true, true]);
    expect(verdictOf(verdicts, 'createOrder').figure).toBe('0.850 (0.84, 0.85, 0.90) × limit');
    expect(verdictOf(verdicts, 'orderQueryList page 1').target).toContain('1,000,000 orders');
  });

  it('holds a ratio to at least 0.8 (a median of 0.796 is below, and says so) and the rest to strictly below', () => {
    const at = judgeTargets({ ...passing, createOrder: { ratio: 0.8, rounds: [0.8] }, createOrderLoopDelayP99Ms: 5, listeningMs: 1000, idleRssMb: 150 });
    expect(verdictOf(at, 'createOrder').met).toBe(true);
    expect(verdictOf(at, 'event-loop delay').met).toBe(false);
    expect(verdictOf(at, 'start-up').met).toBe(false);
    expect(verdictOf(at, 'idle RSS').met).toBe(false);
    const below = judgeTargets({ ...passing, createOrder: { ratio: 0.796, rounds: [0.8, 0.79, 0.86] }, listFirst: { ratio: 0.79, rounds: [0.79] } });
    expect(verdictOf(below, 'createOrder')).toMatchObject({ met: false, figure: '0.796 (0.80, 0.79, 0.86) × limit' });
    expect(verdictOf(below, 'orderQueryList page 1').met).toBe(false);
  });

  it('judges a ratio against the fastest limit reference of each round, and shows the one to the variant with the highest median beside it', () => {
    const bestMedian = { variant: 'limit reference (wal-sync)', ratio: 0.81, rounds: [0.81, 0.78, 0.84] };
    const verdicts = judgeTargets({ ...passing, listFirst: { ratio: 0.776, rounds: [0.78, 0.776, 0.79], bestMedian } });
    expect(verdictOf(verdicts, 'orderQueryList page 1')).toMatchObject({
      met: false,
      figure: '0.776 (0.78, 0.78, 0.79) × limit (0.810 (0.81, 0.78, 0.84) × limit reference (wal-sync), the highest median; not judged)',
    });
  });

  it('judges the open loop by the generator, over every combination, and says what the server saw', () => {
    const generator = Array.from({ length: COMBINATIONS }, () => 3);
    generator[8] = 20.06;
    generator[6] = 14.07;
    const missed = openLoopOf({ ...passing, openLoop: openLoop(rows(generator, Array.from({ length: COMBINATIONS }, () => 1.5))) });
    expect(missed.met).toBe(false);
    expect(missed.figure).toBe('14 of 16 below 10 ms as the generator sees them (inside the server 16 of 16), p99 3.00–20.06 ms');
    // Fewer combinations than there are (a run cut short) meet nothing, however fast they were.
    const partial = openLoopOf({ ...passing, openLoop: openLoop(rows([2, 3, 4])) });
    expect(partial.met).toBe(false);
    expect(partial.figure).toContain('3 of 3');
    // 10 ms itself is not below 10 ms.
    expect(openLoopOf({ ...passing, openLoop: openLoop(rows(Array.from({ length: COMBINATIONS }, () => 10))) }).met).toBe(false);
  });

  it('does not count a combination with failed or unanswered requests as below, whatever its p99', () => {
    const failing = fast();
    // Every request failed: no latency recorded, the histogram's p99 reads 0.
    failing[3] = { ...failing[3]!, generatorP99Ms: 0, serverP99Ms: 0, completed: 0, failures: 10_000 };
    // Answered fast, but some never came back.
    failing[5] = { ...failing[5]!, completed: 9_990, failures: 10 };
    const v = openLoopOf({ ...passing, openLoop: openLoop(failing) });
    expect(v.met).toBe(false);
    expect(v.figure).toMatch(/^14 of 16 below 10 ms .*, 2 with failed or unanswered requests$/);
  });

  it('shows but does not judge what ran under other conditions than the target', () => {
    const slowRate = openLoopOf({ ...passing, openLoop: openLoop(fast(), 100) });
    expect(slowRate.met).toBeUndefined();
    expect(slowRate.figure).toContain('(not judged: at 100 req/s)');
    const small = judgeTargets({ ...passing, orders: 20_000 });
    expect(verdictOf(small, 'orderQueryList p99').met).toBeUndefined();
    expect(verdictOf(small, 'start-up')).toMatchObject({ met: undefined, figure: 'listening after 478 ms (not judged: 20,000 orders)' });
    // The list's ratio is a target on a small database too.
    expect(verdictOf(small, 'orderQueryList page 1')).toMatchObject({ met: true, target: expect.stringContaining('20,000 orders') });
    const fixed = judgeTargets({ ...passing, fixedRate: 500, createOrder: undefined, listFirst: undefined });
    expect(verdictOf(fixed, 'createOrder')).toMatchObject({ met: undefined, figure: 'no ratio (not judged: every scenario at a fixed 500 req/s)' });
    expect(verdictOf(fixed, 'event-loop delay')).toMatchObject({ met: undefined, figure: '2.1 ms (not judged: at a fixed 500 req/s)' });
  });

  it('leaves what the run did not measure unjudged', () => {
    const verdicts = judgeTargets({ orders: 1_000_000, listFirst: { ratio: 0.82, rounds: [0.74, 0.82, 0.83] } });
    expect(verdicts.map((v) => v.met)).toEqual([undefined, true, undefined, undefined, undefined, undefined]);
    expect(verdictOf(verdicts, 'createOrder').figure).toBe('not measured in this run');
  });

  it('writes a Markdown section with one row per target', () => {
    const md = targetsMarkdown(judgeTargets({ ...passing, idleRssMb: 163 })).join('\n');
    expect(md).toContain("## Issue 14's targets in this run");
    expect(md).toContain('| idle RSS < 150 MB | 163 MB | **not met** |');
    expect(md).toContain('| start-up < 1 s, 1,000,000 orders | listening after 478 ms | met |');
    expect(md.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| target'))).toHaveLength(6);
  });

  it('writes ratios as the report does: the median, then each round', () => {
    expect(ratioText(0.7712, [0.77, 0.71, 0.86])).toBe('0.77 (0.77, 0.71, 0.86)');
    expect(ratioText(0.8, [0.8])).toBe('0.80');
  });
});
