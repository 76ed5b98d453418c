/**
 * Issue 14's targets, judged on the figures of one run of `npm run bench`
 * (docs/benchmarks.md, "Where issue 14's targets stand"). One run says what
 * this machine did this time; the docs judge a target across runs.
 */

export const TARGETS = {
  /** createOrder (buy) and list page 1: the median of the per-round ratios to the limit reference, at least. */
  ratio: 0.8,
  /** orderQueryList p99 at the fixed rate, every filter combination, below. */
  openLoopP99Ms: 10,
  /** Event-loop delay p99 under createOrder, below. */
  loopDelayP99Ms: 5,
  /** `serve` listening after start, below. */
  listeningMs: 1000,
  /** Idle RSS, below. */
  idleRssMb: 150,
} as const;

export interface Ratio {
  ratio: number;
  rounds: number[];
}

/** The run's figures; whatever the run did not measure is left out. */
export interface TargetInputs {
  orders: number;
  /** This checkout's `serve` against the limit reference: the median of the per-round ratios, and the rounds'. */
  createOrder?: Ratio | undefined;
  listFirst?: Ratio | undefined;
  /** This checkout's `serve` under createOrder (the median over the rounds). */
  createOrderLoopDelayP99Ms?: number | undefined;
  /** One entry per filter combination: p99 as the generator saw it, and inside the server (undefined: not timed). */
  openLoop?: { generatorP99Ms: number; serverP99Ms: number | undefined }[] | undefined;
  listeningMs?: number | undefined;
  idleRssMb?: number | undefined;
}

export interface Verdict {
  target: string;
  /** What this run measured, in words. */
  figure: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

/** Every filter combination of orderQueryList: status, order_type, start_time, end_time, each present or not. */
export const FILTER_COMBINATIONS = 16;

const NOT_MEASURED = 'not measured in this run';

export function judgeTargets(i: TargetInputs): Verdict[] {
  const onOrders = `${i.orders.toLocaleString('en-US')} orders`;
  const ratio = (r: Ratio) =>
    `${r.ratio.toFixed(2)}${r.rounds.length > 1 ? ` (${r.rounds.map((x) => x.toFixed(2)).join(', ')})` : ''} × limit`;
  const verdicts: Verdict[] = [
    {
      target: `createOrder (buy) ≥ ${TARGETS.ratio}× the limit reference`,
      figure: i.createOrder ? ratio(i.createOrder) : NOT_MEASURED,
      met: i.createOrder && i.createOrder.ratio >= TARGETS.ratio,
    },
    {
      target: `orderQueryList page 1 ≥ ${TARGETS.ratio}× the limit reference, ${onOrders}`,
      figure: i.listFirst ? ratio(i.listFirst) : NOT_MEASURED,
      met: i.listFirst && i.listFirst.ratio >= TARGETS.ratio,
    },
  ];
  const open = i.openLoop;
  if (open && open.length > 0) {
    const below = open.filter((c) => c.generatorP99Ms < TARGETS.openLoopP99Ms).length;
    const timed = open.filter((c) => c.serverP99Ms !== undefined);
    const inside = timed.filter((c) => c.serverP99Ms! < TARGETS.openLoopP99Ms).length;
    verdicts.push({
      target: `orderQueryList p99 < ${TARGETS.openLoopP99Ms} ms at the fixed rate, all ${FILTER_COMBINATIONS} filter combinations, ${onOrders}`,
      figure:
        `${below} of ${open.length} below ${TARGETS.openLoopP99Ms} ms as the generator sees them` +
        (timed.length > 0 ? ` (inside the server ${inside} of ${timed.length})` : '') +
        `, p99 ${Math.min(...open.map((c) => c.generatorP99Ms)).toFixed(2)}–${Math.max(...open.map((c) => c.generatorP99Ms)).toFixed(2)} ms`,
      // The generator's figure is the target's: the server's own timing leaves out what waits in the kernel.
      met: open.length === FILTER_COMBINATIONS && below === FILTER_COMBINATIONS,
    });
  } else {
    verdicts.push({ target: `orderQueryList p99 < ${TARGETS.openLoopP99Ms} ms at the fixed rate, all ${FILTER_COMBINATIONS} filter combinations`, figure: NOT_MEASURED, met: undefined });
  }
  verdicts.push(
    {
      target: `event-loop delay p99 < ${TARGETS.loopDelayP99Ms} ms under createOrder`,
      figure: i.createOrderLoopDelayP99Ms === undefined ? NOT_MEASURED : `${i.createOrderLoopDelayP99Ms.toFixed(1)} ms`,
      met: i.createOrderLoopDelayP99Ms === undefined ? undefined : i.createOrderLoopDelayP99Ms < TARGETS.loopDelayP99Ms,
    },
    {
      target: `start-up < ${TARGETS.listeningMs / 1000} s, ${onOrders}`,
      figure: i.listeningMs === undefined ? NOT_MEASURED : `listening after ${Math.round(i.listeningMs)} ms`,
      met: i.listeningMs === undefined ? undefined : i.listeningMs < TARGETS.listeningMs,
    },
    {
      target: `idle RSS < ${TARGETS.idleRssMb} MB`,
      figure: i.idleRssMb === undefined ? NOT_MEASURED : `${Math.round(i.idleRssMb)} MB`,
      met: i.idleRssMb === undefined ? undefined : i.idleRssMb < TARGETS.idleRssMb,
    },
  );
  return verdicts;
}

/** The verdicts as a Markdown section of the run's report. */
export function targetsMarkdown(verdicts: Verdict[]): string[] {
  const word = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'met' : '**not met**');
  return [
    '## Issue 14\'s targets in this run',
    '',
    'One run on this machine; docs/benchmarks.md judges each target across runs ("Where issue 14\'s targets stand").',
    '',
    '| target | this run | |',
    '|---|---|---|',
    ...verdicts.map((v) => `| ${v.target} | ${v.figure} | ${word(v.met)} |`),
  ];
}
