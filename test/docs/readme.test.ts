/**
 * The README's curl example, run as written (with the demo credentials and
 * port of a real `serve`), must create an order.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { firstLine, spawnCli } from '../support/cli-harness';
import { tempDir } from '../support/temp-dir';

describe('README', () => {
  it('the curl example creates a buy order against npm run serve', async () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const block = /<!-- readme-curl-example -->\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();

    const serve = await spawnCli(['serve', '--demo', '--port', '0', '--data-dir', tempDir(), '--json']);
    const summary = JSON.parse(await firstLine(serve)) as { listening: string; demo: { api_key: string; api_secret: string } };
    const script = block!
      .replace(/^BASE=.*$/m, `BASE=${summary.listening}`)
      .replace(/^API_KEY=.*$/m, `API_KEY=${summary.demo.api_key}`)
      .replace(/^API_SECRET=.*$/m, `API_SECRET=${summary.demo.api_secret}`);
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout) as { code: number; data: { cny_amount: string; pay_url: string } };
    expect(answer.code).toBe(1);
    expect(answer.data.cny_amount).toBe('100.50');
    expect(answer.data.pay_url.startsWith(`${summary.listening}/pay/`)).toBe(true);
    serve.kill('SIGTERM');
  }, 60_000); // two cold starts through tsx (serve, then the sign command)
});
