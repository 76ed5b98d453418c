/**
 * Renderer tests fail on any Vue warning (duplicate keys, missing props, failed
 * resolution…): each one is a rendering defect the production build would
 * hide, not noise.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';

let warnings: string[] = [];
let restore: (() => void) | undefined;

beforeEach(() => {
  warnings = [];
  const original = console.warn.bind(console);
  const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.startsWith('[Vue warn]')) warnings.push(text.split('\n')[0]!);
    original(...args);
  });
  restore = () => spy.mockRestore();
});

afterEach(() => {
  restore?.();
  expect(warnings, 'Vue warnings during the test').toEqual([]);
});
