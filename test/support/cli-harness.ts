import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterEach } from 'vitest';
import { runCli } from '../../src-main/cli/main';
import { engineEnvFor, optionValue } from './test-engine';

/** Runs the CLI in-process with captured output (on the data dir's store of the current engine). */
export async function cli(argv: string[], { stdin = '', env = {} }: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => stdin,
    env: { ...(await engineEnvFor(optionValue(argv, '--data-dir') ?? env.MERCHANT_CONSOLE_DATA_DIR)), ...env },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), json: () => JSON.parse(out.join('\n')) as Record<string, unknown> };
}

export const BIN = path.resolve('bin/merchant-console.mjs');
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Spawns the real bin (tsx, no build) on the data dir's store of the current engine, and tracks it for cleanup. */
export async function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildProcessWithoutNullStreams> {
  const engineEnv = await engineEnvFor(optionValue(args, '--data-dir') ?? env.MERCHANT_CONSOLE_DATA_DIR);
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...engineEnv, ...env }, stdio: 'pipe' });
  children.push(child);
  return child;
}

/** Resolves with the first stdout line (serve --json prints one summary line). */
export function firstLine(child: ChildProcessWithoutNullStreams, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let errBuf = '';
    const timer = setTimeout(() => reject(new Error(`no output in ${timeoutMs} ms; stderr: ${errBuf}`)), timeoutMs);
    child.stderr.on('data', (d: Buffer) => (errBuf += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing; stderr: ${errBuf}`));
    });
  });
}

export function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}
