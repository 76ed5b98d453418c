/**
 * The real bin as a user runs it (tsx, no build step): serve with --demo,
 * one service per data dir, a signed order, graceful shutdown.
 */
import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import { exitOf, firstLine, spawnCli } from '../../support/cli-harness';
import { tempDir } from '../../support/temp-dir';

interface ServeSummary {
  listening: string;
  data_dir: string;
  demo: { merchant_id: number; api_key: string; api_secret: string; channels: { id: number; category: string }[] } | null;
}

describe('merchant-console serve', () => {
  it('seeds a demo merchant on an empty data dir, serves signed requests, refuses a second instance and stops cleanly', async () => {
    const dir = tempDir();
    const serve = await spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dir, '--json']);
    const summary = JSON.parse(await firstLine(serve)) as ServeSummary;
    expect(summary.listening).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect(summary.data_dir).toBe(dir);
    expect(summary.demo!.channels.map((c) => c.category)).toEqual(['alpha', 'beta', 'gamma']);

    const client = createMerchantClient({ baseUrl: summary.listening, apiKey: summary.demo!.api_key, apiSecret: summary.demo!.api_secret });
    const res = await client.createOrder({ order_type: 1, cny_amount: '100.50', paychannel_id: summary.demo!.channels[2]!.id, paychannel_paymethod: 'alipay' });
    expect(res.body.code).toBe(1);

    const second = await spawnCli(['serve', '--port', '0', '--data-dir', dir]);
    const { code, stderr } = await exitOf(second);
    expect(code).toBe(1);
    expect(stderr).toContain(`another merchant-console service (pid ${serve.pid}, listening on ${summary.listening}) is already running on data dir ${dir}`);

    const exited = exitOf(serve);
    serve.kill('SIGTERM');
    expect((await exited).code).toBe(0);

    // Restarted on the same data dir: no second demo, the order is still there.
    const again = await spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dir, '--json']);
    const summary2 = JSON.parse(await firstLine(again)) as ServeSummary;
    expect(summary2.demo).toBeNull();
    const client2 = createMerchantClient({ baseUrl: summary2.listening, apiKey: summary.demo!.api_key, apiSecret: summary.demo!.api_secret });
    expect((await client2.orderQueryList()).body.data!.total).toBe(1);
    again.kill('SIGINT');
    expect((await exitOf(again)).code).toBe(0);
  }, 60_000);

  it('refuses a bad flag naming it, with exit 2, before it listens', async () => {
    const cases: [string[], string][] = [
      [['--rate-limit-key', 'bogus'], '--rate-limit-key: rate limit "bogus" must be off, N, N/s, N/min or N/h'],
      [['--rate-limit-address', '5/day'], '--rate-limit-address: rate limit "5/day"'],
      [['--base-path', 'nope'], '--base-path: base path "nope" must look like /segment/segment'],
      [['--host', '999.1.1.1'], 'cannot listen on host 999.1.1.1 ('],
      [['--host', '192.0.2.1'], 'cannot listen on host 192.0.2.1 (EADDRNOTAVAIL'],
    ];
    for (const [flags, message] of cases) {
      const serve = await spawnCli(['serve', '--port', '0', '--data-dir', tempDir(), ...flags]);
      // A serve that accepted the flag would listen until stopped: stop it so the check fails instead of hanging.
      const timer = setTimeout(() => serve.kill('SIGTERM'), 20_000);
      const { code, stderr } = await exitOf(serve);
      clearTimeout(timer);
      expect([code, stderr.split('\n')[0]], flags.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
  }, 120_000);

  it('reports a port in use clearly', async () => {
    const dir = tempDir();
    const first = await spawnCli(['serve', '--port', '0', '--data-dir', dir, '--json']);
    const port = new URL((JSON.parse(await firstLine(first)) as ServeSummary).listening).port;
    const other = await spawnCli(['serve', '--port', port, '--data-dir', tempDir()]);
    const { code, stderr } = await exitOf(other);
    expect(code).toBe(2);
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
  }, 60_000);
});
