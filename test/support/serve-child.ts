/**
 * A real `merchant-console serve` child process on 127.0.0.1 (ephemeral
 * port, rate limits off unless asked), killed after the test if still up.
 */
import path from 'node:path';
import { afterEach } from 'vitest';
import { startListeningChild, type RunningChild } from '../../bench/lib/processes';

const BIN = path.resolve('bin/merchant-console.mjs');
const running: RunningChild[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop('SIGKILL');
});

export async function startServeChild(dataDir: string, { args = [] as string[], env = {} as NodeJS.ProcessEnv, timeoutMs = 30_000 } = {}): Promise<RunningChild> {
  const child = await startListeningChild(
    [BIN, 'serve', '--data-dir', dataDir, '--port', '0', '--json', '--rate-limit-key', 'off', '--rate-limit-address', 'off', ...args],
    { env: { MERCHANT_CONSOLE_LOG_LEVEL: 'warn', ...env }, timeoutMs },
  );
  running.push(child);
  return child;
}

/** Runs `serve` expecting it to fail before listening; resolves with its exit code and stderr. */
export async function serveFailure(dataDir: string, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  try {
    const child = await startServeChild(dataDir, { args });
    await child.stop('SIGKILL');
    throw new Error(`serve started on ${dataDir} although it should not have`);
  } catch (err) {
    const text = (err as Error).message;
    const m = /exited with (\S+) before listening\n([\s\S]*)$/.exec(text);
    if (!m) throw err;
    return { code: m[1] === 'null' ? null : Number(m[1]), stderr: m[2]! };
  }
}
