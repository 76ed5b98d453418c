/**
 * The program's version, from package.json next to the sources (checkout,
 * `npm run serve`). The desktop build passes Electron's app.getVersion().
 */
import fs from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
      cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
