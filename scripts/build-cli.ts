/**
 * Bundles the CLI (and with it `serve`) into one CommonJS file,
 * dist/cli/merchant-console.cjs, with every dependency inlined except the
 * native better-sqlite3. Loading ~200 files of Fastify, zod and friends
 * through tsx takes 1.5–4 s; the bundle, run by bin/merchant-console.mjs
 * with a V8 code cache it keeps next to it, listens in about half a second
 * (docs/benchmarks.md). bin uses the bundle only while every source file it
 * was built from is unchanged (size and mtime, recorded here in
 * inputs.json), else it runs the sources through tsx as before.
 *
 * dist/cli/ is two levels below the root like src-main/<dir>/, so paths the
 * sources resolve from import.meta.url (the console's out/console) land on
 * the same place; src-main/version.ts looks one level further up too.
 *
 *   npm run build:cli
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const BUNDLE_FILE = 'merchant-console.cjs';
export const INPUTS_FILE = 'inputs.json';

/** Builds into `outDir` (default dist/cli); returns the bundle's absolute path. */
export async function buildCliBundle(outDir = path.join(root, 'dist', 'cli')): Promise<{ file: string; inputs: number; bytes: number }> {
  fs.mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, BUNDLE_FILE);
  // Written aside and renamed into place: a CLI starting meanwhile sees the old or the new bundle, never half of one.
  const tmpSuffix = `.tmp-${process.pid}`;
  const result = await build({
    absWorkingDir: root,
    // src-main/cli/index.ts without its top-level await, which CommonJS cannot hold.
    stdin: {
      contents: "import { processIo, runCli } from './src-main/cli/main';\nvoid runCli(process.argv.slice(2), processIo).then((code) => { process.exitCode = code; });\n",
      resolveDir: root,
      sourcefile: 'cli-entry.ts',
      loader: 'ts',
    },
    outfile: outfile + tmpSuffix,
    bundle: true,
    platform: 'node',
    // CommonJS, so bin can run it through vm.Script with a V8 code cache (no such thing for ES modules on Node 20).
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'electron'],
    define: { 'import.meta.url': '__mcImportMetaUrl' },
    banner: { js: "const __mcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  // Our own sources decide freshness; dependencies are covered by the lock file.
  const own = Object.keys(result.metafile.inputs).filter((p) => !p.includes('node_modules/'));
  const tracked = [...own, 'package-lock.json', 'package.json'].filter((p) => fs.existsSync(path.join(root, p)));
  const inputs = tracked.map((p) => {
    const st = fs.statSync(path.join(root, p));
    return [p, st.size, Math.floor(st.mtimeMs)] as const;
  });
  fs.renameSync(outfile + tmpSuffix, outfile);
  // Code caches of the previous bundle are useless now.
  for (const f of fs.readdirSync(outDir)) if (f.endsWith('.cache') || f.endsWith('.mjs')) fs.rmSync(path.join(outDir, f), { force: true });
  fs.writeFileSync(path.join(outDir, INPUTS_FILE) + tmpSuffix, JSON.stringify({ built: new Date().toISOString(), inputs }));
  fs.renameSync(path.join(outDir, INPUTS_FILE) + tmpSuffix, path.join(outDir, INPUTS_FILE));
  return { file: outfile, inputs: inputs.length, bytes: fs.statSync(outfile).size };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await buildCliBundle();
  console.log(`built ${path.relative(root, r.file)} (${(r.bytes / 1024).toFixed(0)} KiB) from ${r.inputs} tracked source files`);
}
