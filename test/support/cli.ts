/** Runs the CLI in-process with captured output. */
import { runCli } from '../../src-main/cli/main';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  json<T = unknown>(): T;
}

export async function cli(dataDir: string, ...argv: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await runCli([...argv, '--data-dir', dataDir], {
    out: (t) => (out += t + '\n'),
    err: (t) => (err += t + '\n'),
    readStdin: async () => '',
    env: {},
  });
  return { code, out, err, json: <T>() => JSON.parse(out) as T };
}
