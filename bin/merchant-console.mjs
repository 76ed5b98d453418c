#!/usr/bin/env node
// Runs the CLI. When a prebuilt bundle (npm run build:cli → dist/cli/) exists
// and every source file it was built from is unchanged, that bundle runs: it
// starts in about half a second. Otherwise the TypeScript sources run through
// tsx, so a checkout works right after `npm install` with no build step.
// MERCHANT_CONSOLE_NO_BUNDLE=1 always takes the tsx path.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
    return path.join(bundleDir, 'merchant-console.mjs');
  } catch {
    return undefined;
  }
}

const bundle = freshBundle();
if (bundle) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src-main/cli/index.ts');
}
