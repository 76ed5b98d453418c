/**
 * The CLI bundle: it builds, it runs, and bin/merchant-console.mjs uses it
 * only while every tracked source is unchanged.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCliBundle } from '../../scripts/build-cli';
import { tempDir } from '../support/temp-dir';

const root = path.resolve(__dirname, '../..');
const SPEC_BODY =
  '{"api_key":"mk_demo_0001","timestamp":1767225600,"nonce":"n0nce-123","order_type":1,"cny_amount":"100.50","paychannel_id":3,"paychannel_paymethod":"alipay","customer_name":"张三"}';

describe('CLI bundle', () => {
  it('builds and signs the spec example like the sources do', async () => {
    // Two levels below a root, as dist/cli/ is (the bundle finds package.json from there).
    const dir = tempDir();
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules')); // better-sqlite3 stays external
    const built = await buildCliBundle(path.join(dir, 'dist', 'cli'));
    expect(built.inputs).toBeGreaterThan(20);
    const out = execFileSync(process.execPath, [built.file, 'sign', '--secret', 'sk_demo_secret'], { input: SPEC_BODY, encoding: 'utf8' });
    expect(out.trim()).toBe('32ACFB7D59C021888A5D110CF00C41B292430795C4C7D251F672357401874833');
  }, 60_000);

  it('is used by bin only while its recorded sources are unchanged', () => {
    // A miniature checkout: the real bin, a stub bundle and stub sources.
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync(path.join(root, 'bin', 'merchant-console.mjs'), path.join(dir, 'bin', 'merchant-console.mjs'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    fs.mkdirSync(path.join(dir, 'src-main', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src-main', 'cli', 'index.ts'), "console.log('sources');\n");
    fs.mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'cli', 'merchant-console.cjs'), "console.log('bundle');\n");
    const source = path.join(dir, 'src-main', 'cli', 'index.ts');
    const record = () => {
      const st = fs.statSync(source);
      fs.writeFileSync(path.join(dir, 'dist', 'cli', 'inputs.json'), JSON.stringify({ inputs: [['src-main/cli/index.ts', st.size, Math.floor(st.mtimeMs)]] }));
    };
    const run = (env: NodeJS.ProcessEnv = {}) =>
      execFileSync(process.execPath, [path.join(dir, 'bin', 'merchant-console.mjs')], { encoding: 'utf8', env: { ...process.env, ...env } }).trim();

    record();
    expect(run()).toBe('bundle');
    // The first run left a V8 code cache; the next ones start from it.
    expect(fs.readdirSync(path.join(dir, 'dist', 'cli')).some((f) => f.endsWith('.cache'))).toBe(true);
    expect(run()).toBe('bundle');
    expect(run({ MERCHANT_CONSOLE_NO_BUNDLE: '1' })).toBe('sources');
    fs.appendFileSync(source, '// edited\n');
    expect(run()).toBe('sources');
    record();
    expect(run()).toBe('bundle');
    fs.rmSync(path.join(dir, 'dist', 'cli', 'inputs.json'));
    expect(run()).toBe('sources');
  }, 60_000);
});
