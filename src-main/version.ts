/**
 * The program's version, from package.json next to the sources (checkout,
 * `npm run serve`). The desktop build passes Electron's app.getVersion().
 */
import fs from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    cached = '0.0.0';
    // src-main/version.ts in a checkout; dist/cli/merchant-console.mjs in the CLI bundle (npm run build:cli).
    for (const relative of ['../package.json', '../../package.json']) {
      try {
        const pkg = JSON.parse(fs.readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name !== 'merchant-console') continue;
        if (typeof pkg.version === 'string') cached = pkg.version;
        break;
      } catch {
        // not there: try the next place
      }
    }
  }
  return cached;
}
