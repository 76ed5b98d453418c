#!/usr/bin/env node
// Runs the CLI. When a prebuilt bundle (npm run build:cli → dist/cli/) exists
// and every source file it was built from is unchanged, that bundle runs,
// compiled from a V8 code cache kept beside it: `serve` listens in about half
// a second. Otherwise the TypeScript sources run through tsx, so a checkout
// works right after `npm install` with no build step.
// MERCHANT_CONSOLE_NO_BUNDLE=1 always takes the tsx path.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundleDir = path.join(root, 'dist', 'cli');

function freshBundle() {
  if (process.env.MERCHANT_CONSOLE_NO_BUNDLE) return undefined;
  try {
    const { inputs } = JSON.parse(fs.readFileSync(path.join(bundleDir, 'inputs.json'), 'utf8'));
    for (const [file, size, mtime] of inputs) {
      const st = fs.statSync(path.join(root, file));
      if (st.size !== size || Math.floor(st.mtimeMs) !== mtime) return undefined;
    }
    const bundle = path.join(bundleDir, 'merchant-console.cjs');
    return fs.existsSync(bundle) ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a CommonJS bundle like require() would, compiling from (and refreshing) a code cache. */
function runWithCodeCache(file) {
  const cacheFile = `${file}.${process.version}-${process.arch}.cache`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const source = fs.readFileSync(file, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // Written once the program has run for a while (more functions compiled), or at exit, whichever comes first.
    let written = false;
    const save = () => {
      if (written) return;
      written = true;
      try {
        const tmp = `${cacheFile}.tmp-${process.pid}`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      } catch {
        // A read-only checkout just starts a little slower.
      }
    };
    setTimeout(save, 3000).unref();
    process.once('exit', save);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
}

const bundle = freshBundle();
if (bundle) {
  runWithCodeCache(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src-main/cli/index.ts');
}
