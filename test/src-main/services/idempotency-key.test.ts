import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from '../../../src-main/services/idempotency-service';

describe('Idempotency-Key header', () => {
  it('takes 1-255 printable ASCII characters without leading or trailing spaces (the rule the API reference shows)', () => {
    for (const key of ['a', 'a b', '!~', 'x'.repeat(255), `k${' '.repeat(253)}k`]) expect(idempotencyKeyOf([key])).toBe(key);
    for (const key of ['', ' ', ' a', 'a ', 'x'.repeat(256), 'caf\u00e9', 'tab\there', 'del\u007f']) {
      expect(() => idempotencyKeyOf([key]), JSON.stringify(key)).toThrow('Idempotency-Key: must be 1-255 printable ASCII characters');
    }
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(() => idempotencyKeyOf(['a', 'b'])).toThrow('Idempotency-Key: given more than once');
  });
});
