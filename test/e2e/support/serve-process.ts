/**
 * A real `merchant-console serve --demo` child process on 127.0.0.1 with an
 * ephemeral port and a temp data dir, its --json summary parsed; plus the
 * CLI for admin commands on the same data dir while it runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/merchant-console.mjs');
const START_TIMEOUT_MS = 30_000;

export interface ServeSummary {
  listening: string;
  data_dir: string;
  console_url?: string;
  /** Only while the store has no account: where the first owner is created. */
  console_setup_url?: string | null;
  demo: { merchant_id: number; api_key: string; api_secret: string; channels: { id: number; category: 'alpha' | 'beta' | 'gamma'; name: string }[] } | null;
  [key: string]: unknown;
}

export interface ServeProcess {
  summary: ServeSummary;
  dataDir: string;
  /** Runs a CLI command with --json on the same data dir and parses its answer. */
  cli(args: string[]): unknown;
  /** Runs a CLI command on the same data dir as it is (no --json): exit status and output. */
  cliRaw(args: string[]): { status: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
  stderr(): string;
}

export async function startServe(): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--demo', '--json', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, MERCHANT_CONSOLE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const summary = await new Promise<ServeSummary>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within ${START_TIMEOUT_MS} ms\n${stderr}`)), START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      clearTimeout(timer);
      resolvePromise(JSON.parse(line) as ServeSummary);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}\n${stderr}`));
    });
  });

  return {
    summary,
    dataDir,
    stderr: () => stderr,
    cli(args) {
      const r = spawnSync(process.execPath, [BIN, ...args, '--json', '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      if (r.status !== 0) throw new Error(`merchant-console ${args.join(' ')} failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as unknown;
    },
    cliRaw(args) {
      const r = spawnSync(process.execPath, [BIN, ...args, '--data-dir', dataDir], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const timeout = new Promise<void>((r) => setTimeout(r, 10_000));
        await Promise.race([exited, timeout]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
