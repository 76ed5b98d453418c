/**
 * A target's ratio to the limit reference, from the rounds of one run.
 *
 * A scenario may have several limit-reference variants (SQLite's commit
 * policies wal-sync, pipelined and full; PostgreSQL's pool sizes). The
 * judged ratio takes, in each round, the fastest variant of that round (so
 * drift cancels), and its median over the rounds. That limit is strict: it
 * compares one draw of the target with the best of two or three draws, so on
 * a machine whose rounds scatter it is raised by that scatter (for
 * list-first, wal-sync and pipelined even run the same code: a read's batch
 * is not durable, so neither waits for a sync). The report therefore gives,
 * beside it and not judged, the ratio to one variant: the one with the
 * highest median over the run, compared round by round (docs/benchmarks.md,
 * "Rounds, A B A B").
 */

/** One measurement: which target or variant, which round, and the figure (req/s, or CPU µs per request). */
export interface RoundFigure {
  target: string;
  round: number;
  value: number;
}

export interface LimitRatio {
  /** Median of the per-round ratios to the fastest variant of each round (judged), and the rounds' ratios. */
  ratio: number;
  ratios: number[];
  /** The same to one variant, the one with the highest median over the rounds (shown beside). */
  bestMedian: { variant: string; ratio: number; ratios: number[] };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The variant with the highest median (or, `lowerIsBetter`, the lowest: CPU
 * per request), and that median; ties go to the first named. Undefined when
 * there is none.
 */
export function bestVariant(limits: readonly RoundFigure[], lowerIsBetter = false): { variant: string; median: number } | undefined {
  const byVariant = new Map<string, number[]>();
  for (const l of limits) if (Number.isFinite(l.value)) byVariant.set(l.target, [...(byVariant.get(l.target) ?? []), l.value]);
  let best: { variant: string; median: number } | undefined;
  for (const [variant, values] of byVariant) {
    const m = median(values);
    if (!best || (lowerIsBetter ? m < best.median : m > best.median)) best = { variant, median: m };
  }
  return best;
}

/**
 * `self`'s rounds against the limit: figure / limit per round (req/s), or
 * limit / figure (`lowerIsBetter`: CPU per request, so that above 1 is better
 * either way). Rounds without a limit measurement are left out; undefined
 * when no round has one.
 */
export function ratioToLimit(self: readonly RoundFigure[], limits: readonly RoundFigure[], lowerIsBetter = false): LimitRatio | undefined {
  const variant = bestVariant(limits, lowerIsBetter)?.variant;
  if (variant === undefined) return undefined;
  const of = (figure: number, limit: number) => (lowerIsBetter ? limit / figure : figure / limit);
  const fastest: number[] = [];
  const toVariant: number[] = [];
  for (const s of self) {
    if (!Number.isFinite(s.value)) continue;
    const round = limits.filter((l) => l.round === s.round && Number.isFinite(l.value));
    if (round.length === 0) continue;
    const values = round.map((l) => l.value);
    fastest.push(of(s.value, lowerIsBetter ? Math.min(...values) : Math.max(...values)));
    const same = round.find((l) => l.target === variant);
    if (same) toVariant.push(of(s.value, same.value));
  }
  if (fastest.length === 0) return undefined;
  return { ratio: median(fastest), ratios: fastest, bestMedian: { variant, ratio: median(toVariant), ratios: toVariant } };
}
