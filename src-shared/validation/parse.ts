/**
 * Runs a zod schema and turns the first problem into one AppError whose
 * message names the field and the rule (`cny_amount: must be greater than 0`).
 */
import type { z } from 'zod';
import { AppError, ErrorCode } from '../errors';

type Issue = z.core.$ZodIssue;

function describeExpected(expected: string): string {
  switch (expected) {
    case 'int':
    case 'number':
      return 'an integer';
    case 'string':
      return 'a string';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'boolean':
      return 'a boolean';
    default:
      return expected;
  }
}

function fieldOf(path: readonly PropertyKey[], root: string): string {
  return path.length === 0 ? root : path.map(String).join('.');
}

/** zod's own wording starts like this; anything else was written on the schema and wins. */
const GENERIC_MESSAGE = /^(Invalid|Too small|Too big|Unrecognized)/;

export function describeIssue(issue: Issue, root = 'body'): string {
  const field = fieldOf(issue.path, root);
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && 'input' in issue && issue.input === undefined) {
    return `${field}: is required`;
  }
  if (issue.code !== 'invalid_type' && issue.code !== 'unrecognized_keys' && !GENERIC_MESSAGE.test(issue.message)) {
    return `${field}: ${issue.message}`;
  }
  switch (issue.code) {
    case 'invalid_type':
      return `${field}: must be ${describeExpected(issue.expected)}`;
    case 'unrecognized_keys': {
      const prefix = issue.path.length ? `${fieldOf(issue.path, root)}.` : '';
      return `${prefix}${issue.keys[0]}: unknown parameter`;
    }
    case 'invalid_value':
      return `${field}: must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return `${field}: must be at least ${String(issue.minimum)} characters`;
      return `${field}: must be at least ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `${field}: must be at most ${String(issue.maximum)} characters`;
      return `${field}: must be at most ${String(issue.maximum)}`;
    case 'invalid_format':
      return `${field}: has an invalid format`;
    case 'invalid_union': {
      // A union of literals: list what is allowed.
      const values = issue.errors.flatMap((branch) =>
        branch.flatMap((i) => (i.code === 'invalid_value' ? i.values.map((v) => String(v)) : [])),
      );
      if (values.length === issue.errors.length) return `${field}: must be one of ${values.join(', ')}`;
      return `${field}: is invalid`;
    }
    case 'custom':
      return `${field}: ${issue.message}`;
    default:
      return `${field}: is invalid`;
  }
}

/** Unknown parameters first (they usually explain everything else), then in path order. */
function firstIssue(issues: readonly Issue[]): Issue {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
}

/** `codeOf` picks the error code by the failing member (authentication members answer 2001, not 1001). */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = 'body', codeOf: (issue: Issue) => ErrorCode = () => ErrorCode.VALIDATION): z.output<S> {
  // reportInput: tells "missing" (input undefined) apart from "wrong type".
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issue = firstIssue(result.error.issues);
  throw new AppError(codeOf(issue), describeIssue(issue, root));
}
