/**
 * Runs tests as a viewer in another time zone. Node applies a runtime change
 * of process.env.TZ to Date at once, so one test file can check the same
 * cases from several zones, whatever zone the host (or CI) is in.
 */
import { afterAll, beforeAll } from 'vitest';

/** Beijing itself, UTC, and zones west and east of it (one with daylight saving, both date-line extremes). */
export const VIEWER_TIME_ZONES = ['Asia/Shanghai', 'UTC', 'America/New_York', 'Europe/Berlin', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'] as const;

/** In a describe block: its tests run with the local zone set to `zone`, restored afterwards. */
export function useViewerTimeZone(zone: string): void {
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.TZ;
    process.env.TZ = zone;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  });
}
