import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { measureGeneratorFloor, runOpenLoop, type OpenLoopSpec } from '../../../bench/lib/open-loop';

/** A body per request, counted: every request the generator built, its warm-up included. */
function countingSpec(): { spec: Omit<OpenLoopSpec, 'url'>; built: () => number } {
  let built = 0;
  return {
    spec: {
      method: 'POST',
      path: '/merchant/orderQueryList',
      headers: { 'content-type': 'application/json' },
      build: () => JSON.stringify({ n: ++built }),
      checkBody: (body) => JSON.parse(body).code === 1,
      rate: 200,
      durationSeconds: 0.5,
    },
    built: () => built,
  };
}

describe('measureGeneratorFloor (against a real server doing nothing)', () => {
  it('sends its warm-up first and measures only the schedule after it', async () => {
    const { spec, built } = countingSpec();
    const floor = await measureGeneratorFloor(spec, 0.5);
    // 100 requests warm it up, unmeasured; the next 100 are the floor.
    expect(built()).toBe(200);
    expect(floor.scheduled).toBe(100);
    expect(floor.completed).toBe(100);
    expect(floor.failures).toBe(0);
    expect(floor.p50).toBeGreaterThan(0);
  });

  it('measures at once without a warm-up', async () => {
    const { spec, built } = countingSpec();
    const floor = await measureGeneratorFloor(spec, 0);
    expect(built()).toBe(100);
    expect(floor.completed).toBe(100);
    // Every socket was opened during the run (a pool of its own), and counted.
    expect(floor.connects).toBeGreaterThanOrEqual(1);
    expect(floor.mostSockets).toBeGreaterThanOrEqual(1);
  });

  it('opens a socket for each request due while every open one waits, and counts them', async () => {
    // Answers after 50 ms: at 200 requests a second about ten wait at once, each on a socket of its own.
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.end('{"code":1}'), 50));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { spec } = countingSpec();
      const r = await runOpenLoop({ ...spec, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      expect(r.completed).toBe(100);
      expect(r.failures).toBe(0);
      expect(r.mostSockets).toBeGreaterThanOrEqual(5);
      expect(r.connects).toBeGreaterThanOrEqual(r.mostSockets);
      expect(r.p50).toBeGreaterThanOrEqual(50);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
