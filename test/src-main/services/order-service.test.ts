import { describe, expect, it } from 'vitest';
import { newOrderNo } from '../../../src-main/services/order-service';

describe('newOrderNo', () => {
  it('stamps each order with its own second in Beijing time, whichever second came before (the stamp is kept per second)', () => {
    const t = 1767225600; // 2026-01-01 08:00:00 Beijing
    const seen = [newOrderNo(1, t), newOrderNo(1, t), newOrderNo(1, t + 1), newOrderNo(2, t), newOrderNo(1, t + 86_399), newOrderNo(1, t)];
    expect(seen.map((no) => no.slice(0, 15))).toEqual(['B20260101080000', 'B20260101080000', 'B20260101080001', 'S20260101080000', 'B20260102075959', 'B20260101080000']);
    for (const no of seen) expect(no).toMatch(/^[BS]\d{14}\d{10}$/);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
