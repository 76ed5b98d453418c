/**
 * Rules across an object's members (one member checked against another),
 * as a zod check: `schema.check(acrossMembers(rule))`.
 *
 * Not `.superRefine` (which makes a closure, `ctx.addIssue`, for every value
 * it checks): with it, Node 24 kept each orderQueryList request's inputs past
 * young collections and promoted them, about 0.6 MB a second of old
 * generation at 1,000 requests a second, with full collections 3.5–44 s
 * apart, where without it the lists promote next to nothing
 * (docs/benchmarks.md, "Morning of 2026-11-30"; how V8 keeps them was not
 * traced). The check below is made once per schema and pushes its issues
 * itself. A lint rule keeps superRefine out of the project.
 */
import type { z } from 'zod';

/** One member's problem: the member's name and what is wrong with it, as the refusal's message says it. */
export type MemberProblem = readonly [member: string, message: string];

/** A zod check from a rule that returns the value's problems (none: undefined, which a hot rule returns to make no array, or an empty list). */
export function acrossMembers<T>(rule: (value: T) => readonly MemberProblem[] | undefined): z.core.CheckFn<T> {
  return (payload) => {
    const problems = rule(payload.value);
    if (problems === undefined) return;
    for (const [member, message] of problems) {
      // continue: the schema's later checks still run, as they did after superRefine's issues.
      payload.issues.push({ code: 'custom', input: payload.value, path: [member], message, continue: true });
    }
  };
}

/** start_time and end_time (inclusive, Unix seconds) in order when both are given: one rule for every list that takes them. */
export const timeRangeInOrder = acrossMembers<{ start_time?: number | undefined; end_time?: number | undefined }>((v) =>
  v.start_time !== undefined && v.end_time !== undefined && v.start_time > v.end_time ? [['end_time', 'must not be before start_time']] : undefined,
);
