/**
 * A real `merchant-console serve` child process on 127.0.0.1 (ephemeral
 * port, rate limits off unless asked), killed after the test if still up.
 */
import path from 'node:path';
import { afterEach } from 'vitest';
import { startListeningChild, type RunningChild } from '../../bench/lib/processes';
import { engineEnvFor } from './test-engine';

const BIN = path.resolve('bin/merchant-console.mjs');
const running: RunningChild[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop('SIGKILL');
});

export interface ServeChildOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Run as another user (the test process must be root). */
  user?: { uid: number; gid: number };
}

/** `serve` on the data dir's store of the current engine (SQLite in the dir, or its PostgreSQL database). */
export async function startServeChild(dataDir: string, { args = [], env = {}, timeoutMs = 30_000, user }: ServeChildOptions = {}): Promise<RunningChild> {
  const child = await startListeningChild(
    [BIN, 'serve', '--data-dir', dataDir, '--port', '0', '--json', '--rate-limit-key', 'off', '--rate-limit-address', 'off', ...args],
    { env: { MERCHANT_CONSOLE_LOG_LEVEL: 'warn', ...(await engineEnvFor(dataDir)), ...env }, timeoutMs, ...user },
  );
  running.push(child);
  return child;
}

/** Runs `serve` expecting it to fail before listening; resolves with its exit code and stderr. */
export async function serveFailure(dataDir: string, args: string[] = [], user?: ServeChildOptions['user']): Promise<{ code: number | null; stderr: string }> {
  try {
    const child = await startServeChild(dataDir, { args, user });
    await child.stop('SIGKILL');
    throw new Error(`serve started on ${dataDir} although it should not have`);
  } catch (err) {
    const text = (err as Error).message;
    const m = /exited with (\S+) before listening\n([\s\S]*)$/.exec(text);
    if (!m) throw err;
    return { code: m[1] === 'null' ? null : Number(m[1]), stderr: m[2]! };
  }
}
