/**
 * Child processes under test: start, wait until listening (timed), sample
 * resident memory from /proc, stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

export interface RunningChild {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn until the process printed where it listens. */
  listenMs: number;
  /** The JSON line the process printed when listening. */
  summary: Record<string, unknown>;
  stderr(): string;
  /** Everything printed on stdout so far (pino logs go there). */
  stdout(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `node args…` and waits for a JSON line on stdout with a `listening` URL. */
export async function startListeningChild(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; uid?: number; gid?: number } = {},
): Promise<RunningChild> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    uid: options.uid,
    gid: options.gid,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.length > 4_000_000) stdout = stdout.slice(-2_000_000);
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const summary = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')}: not listening after ${options.timeoutMs ?? 60_000} ms\n${stderr}`)), options.timeoutMs ?? 60_000);
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.listening === 'string') {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // not the summary line
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code} before listening\n${stderr}`));
    });
  });
  const listenMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    child,
    pid: child.pid!,
    url: summary.listening as string,
    listenMs,
    summary,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Resident set size of a process in bytes (VmRSS), or undefined when it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples RSS every `intervalMs` until stopped; returns the peak seen. */
export function sampleRss(pid: number, intervalMs = 50): { stop(): number } {
  let peak = rssOf(pid) ?? 0;
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    if (rss !== undefined && rss > peak) peak = rss;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = rssOf(pid);
      if (rss !== undefined && rss > peak) peak = rss;
      return peak;
    },
  };
}

export function loadAverage(): string {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}
