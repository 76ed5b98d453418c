/**
 * The order of the targets' windows in a round of `--long-lived`: as listed
 * in odd rounds, reversed in even ones (A B C, C B A, A B C…), so that over
 * an even number of rounds each target is measured as often early in a round
 * as late in it, and a drift of the machine over a round does not favour
 * the one listed first.
 */
export function windowOrder<T>(targets: readonly T[], round: number): T[] {
  return round % 2 === 1 ? [...targets] : [...targets].reverse();
}
