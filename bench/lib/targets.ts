/**
 * Issue 14's targets, judged on the figures of one run of `npm run bench`
 * (docs/benchmarks.md, "Where issue 14's targets stand"). One run says what
 * this machine did this time; the docs judge a target across runs. A figure
 * measured under other conditions than the target's (another rate, a
 * smaller database, `--fixed-rate`) is shown but not judged.
 */

export const TARGETS = {
  /** createOrder (buy) and list page 1: the median of the per-round ratios to the limit reference, at least. */
  ratio: 0.8,
  /** orderQueryList p99 at `openLoopRate`, every filter combination, below. */
  openLoopP99Ms: 10,
  openLoopRate: 1000,
  /** Event-loop delay p99 under createOrder, below. */
  loopDelayP99Ms: 5,
  /** `serve` listening after start, below. */
  listeningMs: 1000,
  /** Idle RSS, below. */
  idleRssMb: 150,
  /** The open loop and the start-up are targets on this many orders. */
  orders: 1_000_000,
} as const;

export interface Ratio {
  ratio: number;
  rounds: number[];
  /** The same to one limit variant, the one with the highest median (bench/lib/limit-ratio.ts): shown, not judged. */
  bestMedian?: { variant: string; ratio: number; rounds: number[] } | undefined;
}

/** One filter combination of the open loop. */
export interface OpenLoopFigures {
  /** p99 as the generator saw it, and inside the server (undefined: not timed). */
  generatorP99Ms: number;
  serverP99Ms: number | undefined;
  scheduled: number;
  completed: number;
  failures: number;
}

/** The run's figures and settings; whatever the run did not measure is left out. */
export interface TargetInputs {
  orders: number;
  /** Set when every closed-loop scenario ran at this rate (`--fixed-rate`): no ratio, and a lighter load. */
  fixedRate?: number | undefined;
  /** This checkout's `serve` against the limit reference: the median of the per-round ratios, and the rounds'. */
  createOrder?: Ratio | undefined;
  listFirst?: Ratio | undefined;
  /** This checkout's `serve` under createOrder (the median over the rounds). */
  createOrderLoopDelayP99Ms?: number | undefined;
  /** `combinations`: how many filter combinations there are; `rows`: those measured. */
  openLoop?: { rate: number; combinations: number; rows: OpenLoopFigures[] } | undefined;
  listeningMs?: number | undefined;
  idleRssMb?: number | undefined;
}

export interface Verdict {
  target: string;
  /** What this run measured, in words. */
  figure: string;
  /** undefined: not measured in this run, or not under the target's conditions. */
  met: boolean | undefined;
}

/** A median ratio and its rounds, as the report writes them. */
export function ratioText(median: number, rounds: readonly number[], digits = 2): string {
  return `${median.toFixed(digits)}${rounds.length > 1 ? ` (${rounds.map((r) => r.toFixed(2)).join(', ')})` : ''}`;
}

const NOT_MEASURED = 'not measured in this run';

/** A verdict without its target's text. */
type Judgement = Pick<Verdict, 'figure' | 'met'>;

const notMeasured: Judgement = { figure: NOT_MEASURED, met: undefined };
const notJudged = (figure: string, why: string): Judgement => ({ figure: `${figure} (not judged: ${why})`, met: undefined });
const ordersText = (orders: number) => `${orders.toLocaleString('en-US')} orders`;

export function judgeTargets(i: TargetInputs): Verdict[] {
  const smallerThanTarget = i.orders < TARGETS.orders ? ordersText(i.orders) : undefined;
  const fixed = i.fixedRate === undefined ? undefined : `at a fixed ${i.fixedRate} req/s`;
  // Three decimals: a median of 0.796 is not 0.80.
  const ratioVerdict = (r: Ratio | undefined): Judgement =>
    fixed
      ? notJudged('no ratio', `every scenario ${fixed}`)
      : r === undefined
        ? notMeasured
        : {
            figure:
              `${ratioText(r.ratio, r.rounds, 3)} × limit` +
              (r.bestMedian ? ` (${ratioText(r.bestMedian.ratio, r.bestMedian.rounds, 3)} × ${r.bestMedian.variant}, the highest median; not judged)` : ''),
            met: r.ratio >= TARGETS.ratio,
          };
  const below = (value: number | undefined, limit: number, figure: (v: number) => string, unlessWhy?: string): Judgement =>
    value === undefined ? notMeasured : unlessWhy ? notJudged(figure(value), unlessWhy) : { figure: figure(value), met: value < limit };

  return [
    { target: `createOrder (buy) ≥ ${TARGETS.ratio}× the limit reference`, ...ratioVerdict(i.createOrder) },
    { target: `orderQueryList page 1 ≥ ${TARGETS.ratio}× the limit reference, ${ordersText(i.orders)}`, ...ratioVerdict(i.listFirst) },
    {
      target: `orderQueryList p99 < ${TARGETS.openLoopP99Ms} ms at ${TARGETS.openLoopRate.toLocaleString('en-US')} req/s, every filter combination, ${ordersText(TARGETS.orders)}`,
      ...openLoopVerdict(i.openLoop, smallerThanTarget),
    },
    { target: `event-loop delay p99 < ${TARGETS.loopDelayP99Ms} ms under createOrder`, ...below(i.createOrderLoopDelayP99Ms, TARGETS.loopDelayP99Ms, (v) => `${v.toFixed(1)} ms`, fixed) },
    {
      target: `start-up < ${TARGETS.listeningMs / 1000} s, ${ordersText(TARGETS.orders)}`,
      ...below(i.listeningMs, TARGETS.listeningMs, (v) => `listening after ${Math.round(v)} ms`, smallerThanTarget),
    },
    { target: `idle RSS < ${TARGETS.idleRssMb} MB`, ...below(i.idleRssMb, TARGETS.idleRssMb, (v) => `${Math.round(v)} MB`) },
  ];
}

function openLoopVerdict(open: TargetInputs['openLoop'], smallerThanTarget: string | undefined): Judgement {
  if (!open || open.rows.length === 0) return notMeasured;
  // A combination with a failed or unanswered request is not below the target, however fast the others were
  // (a failed request leaves no latency behind).
  const clean = (c: OpenLoopFigures) => c.failures === 0 && c.completed === c.scheduled;
  const belowCount = open.rows.filter((c) => clean(c) && c.generatorP99Ms < TARGETS.openLoopP99Ms).length;
  const timed = open.rows.filter((c) => c.serverP99Ms !== undefined);
  const inside = timed.filter((c) => clean(c) && c.serverP99Ms! < TARGETS.openLoopP99Ms).length;
  const failed = open.rows.filter((c) => !clean(c)).length;
  const p99s = open.rows.map((c) => c.generatorP99Ms);
  const figure =
    `${belowCount} of ${open.rows.length} below ${TARGETS.openLoopP99Ms} ms as the generator sees them` +
    (timed.length > 0 ? ` (inside the server ${inside} of ${timed.length})` : '') +
    `, p99 ${Math.min(...p99s).toFixed(2)}–${Math.max(...p99s).toFixed(2)} ms` +
    (failed > 0 ? `, ${failed} with failed or unanswered requests` : '');
  if (open.rate !== TARGETS.openLoopRate) return notJudged(figure, `at ${open.rate} req/s`);
  if (smallerThanTarget) return notJudged(figure, smallerThanTarget);
  // The generator's figure is the target's: the server's own timing leaves out what waits in the kernel.
  return { figure, met: open.rows.length === open.combinations && belowCount === open.combinations };
}

/** The verdicts as a Markdown section of the run's report. */
export function targetsMarkdown(verdicts: Verdict[]): string[] {
  const word = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'met' : '**not met**');
  return [
    "## Issue 14's targets in this run",
    '',
    "One run on this machine; docs/benchmarks.md judges each target across runs (\"Where issue 14's targets stand\").",
    '',
    '| target | this run | |',
    '|---|---|---|',
    ...verdicts.map((v) => `| ${v.target} | ${v.figure} | ${word(v.met)} |`),
  ];
}
