/**
 * docs/channels.md describes the pay token (a capability: whoever holds it can
 * press Pay or Fail): keep its description true to the code that makes it.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newPayToken } from '../../src-main/services/order-service';

describe('docs/channels.md', () => {
  it('describes the pay token as it is made: 6 bytes of creation time, then 18 random bytes', () => {
    const before = Date.now();
    const tokens = Array.from({ length: 64 }, () => Buffer.from(newPayToken(), 'base64url'));
    const after = Date.now();
    for (const bytes of tokens) {
      expect(bytes).toHaveLength(24);
      const time = bytes.readUIntBE(0, 6);
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
    // The other 18 bytes differ from token to token.
    expect(new Set(tokens.map((b) => b.subarray(6).toString('hex'))).size).toBe(tokens.length);

    const doc = fs.readFileSync('docs/channels.md', 'utf8');
    const payIn = doc.slice(doc.indexOf('- **Pay-in.**'), doc.indexOf('The hosted checkout page'));
    expect(payIn).toContain('6 bytes of the creation time in milliseconds, then 18 random bytes');
    expect(payIn).not.toMatch(/24 random bytes/);
  });
});
