/**
 * The test commands the README names: `npm test` runs every vitest project
 * once (`unit` and `service` are parts of `node`); `npm run test:unit` stays
 * the fast in-process loop — a suite that starts a process, builds or drives
 * a browser must be listed in OUT_OF_PROCESS (vitest.config.ts), or it would
 * slow the loop down and need what the loop promises not to; and
 * `npm run test:node22` and `npm run test:node24` run the `service` and
 * `postgres` projects on those Node lines. CI (`.ci/run`) runs them on the
 * lines package.json supports, not on the machine's own Node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import config, { BROWSER_AND_PACKAGING, OUT_OF_PROCESS } from '../../vitest.config';

const scripts = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[]; exclude?: string[] } }[];
const projectNamed = (name: string) => projects.find((p) => p.test.name === name)!.test;
const projectsOf = (script: string) => [...script.matchAll(/--project (\S+)/g)].map((m) => m[1]);

/** What gives a suite away as not in-process: the CLI's real bin, a serve child, the open loop's trivial server, mounts, a browser, a bundler. */
const OUT_OF_PROCESS_SIGNS = /node:child_process|\bspawnCli\(|startServeChild|serveFailure|measureGeneratorFloor\(|support\/mounts|playwright-core|from 'vite'|electron-builder|esbuild/;

/** The suite files of a project whose include globs are all `<folder>/**\/*.test.ts`. */
function suitesOf(project: { include: string[]; exclude?: string[] }): string[] {
  const excluded = (file: string) =>
    (project.exclude ?? []).some((pattern) => (pattern.endsWith('/**') ? file.startsWith(pattern.slice(0, -2)) : file === pattern));
  return project.include.flatMap((glob) => {
    const folder = glob.replace(/\/\*\*\/\*\.test\.ts$/, '');
    expect(folder, glob).not.toContain('*');
    return (fs.readdirSync(folder, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.posix.join(folder, f.split(path.sep).join('/')))
      .filter((f) => !excluded(f));
  });
}

describe('test commands', () => {
  it('npm test runs every vitest project once: all but unit and service, which node already holds', () => {
    const names = projects.map((p) => p.test.name);
    expect(scripts.test).toMatch(/^vitest run( --project \S+)+$/);
    expect(projectsOf(scripts.test!).sort()).toEqual(names.filter((n) => n !== 'unit' && n !== 'service').sort());
    const node = new Set(suitesOf(projectNamed('node')));
    for (const part of ['unit', 'service']) for (const file of suitesOf(projectNamed(part))) expect(node.has(file), `${part}: ${file}`).toBe(true);
  });

  it('npm run test:node22 and test:node24 run the service project (node without the browser and packaging suites) and the postgres one', () => {
    expect(scripts['test:node22']).toBe('bash scripts/test-node.sh 22');
    expect(scripts['test:node24']).toBe('bash scripts/test-node.sh 24');
    // The lines the scripts take are the lines package.json supports.
    const engines = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((range) => /\^(\d+)\./.exec(range)?.[1])).toEqual(['22', '24']);
    const run = fs.readFileSync('scripts/test-node.sh', 'utf8').split('\n').find((line) => line.includes('vitest.mjs run'));
    expect(projectsOf(run!)).toEqual(['service', 'postgres']);
    const service = new Set(suitesOf(projectNamed('service')));
    expect(suitesOf(projectNamed('node')).filter((f) => !service.has(f)).sort()).toEqual([...BROWSER_AND_PACKAGING].sort());
  });

  it('npm run test:unit runs the unit project: the node suites that start no process, build nothing and drive no browser', () => {
    expect(projectsOf(scripts['test:unit']!)).toEqual(['unit']);
    const unit = suitesOf(projectNamed('unit'));
    expect(unit.length).toBeGreaterThan(50);
    // This file names the signs without showing any.
    for (const file of unit.filter((f) => f !== 'test/docs/test-commands.test.ts')) {
      expect(OUT_OF_PROCESS_SIGNS.test(fs.readFileSync(file, 'utf8')), `${file} belongs in OUT_OF_PROCESS`).toBe(false);
    }
    // Every listed suite exists and is there for a reason.
    for (const file of OUT_OF_PROCESS) expect(OUT_OF_PROCESS_SIGNS.test(fs.readFileSync(file, 'utf8')), `${file} is in-process: take it out of OUT_OF_PROCESS`).toBe(true);
  });

  it('CI runs npm test on Node 22 (on PATH before npm ci) and the service suites on Node 24: the lines engines names', () => {
    const lines = fs.readFileSync('.ci/run', 'utf8').split('\n').filter((line) => !line.trimStart().startsWith('#'));
    const at = (pattern: RegExp) => {
      const index = lines.findIndex((line) => pattern.test(line));
      expect(index, String(pattern)).toBeGreaterThan(-1);
      return index;
    };
    const fetched = /^ci_node="\$PWD\/\.ci\/node(\d+)"$/.exec(lines[at(/^ci_node=/)]!)?.[1];
    const fetch = at(/^phase "Node \d+" bash scripts\/fetch-node\.sh (\d+) "\$ci_node"$/);
    expect(lines[fetch]).toContain(`fetch-node.sh ${fetched} `);
    const onPath = at(/^export PATH="\$ci_node\/bin:\$PATH"$/);
    // Its headers for the install's compile only: the Node-24 run compiles against its own.
    const install = at(/^phase "npm ci" env npm_config_nodedir="\$ci_node" npm ci\b/);
    const test = at(/^phase "[^"]*" npm test$/);
    const second = /scripts\/test-node\.sh (\d+)$/.exec(lines[at(/^phase "[^"]*" bash scripts\/test-node\.sh \d+$/)]!)?.[1];
    expect(fetch < onPath && onPath < install && install < test).toBe(true);
    // The second line's build is compiled in the background beside the install, in a folder the
    // install leaves alone (and git ignores), and waited for before the tests (which want both cores).
    const cacheLine = /^export NODE_RUNTIME_CACHE="\$PWD\/([^"]+)"$/;
    const cacheAt = at(cacheLine);
    const cacheDir = cacheLine.exec(lines[cacheAt]!)?.[1];
    expect(cacheDir).not.toContain('node_modules');
    expect(fs.readFileSync('.gitignore', 'utf8').split('\n')).toContain(`${cacheDir}/`);
    const prepare = at(/^ {2}bash scripts\/prepare-node\.sh (\d+) /);
    expect(lines[prepare]).toContain(`prepare-node.sh ${second} `);
    const typecheck = at(/^phase "typecheck and lint" /);
    const ready = at(/^phase "[^"]*" node\d+_ready$/);
    expect(onPath < cacheAt && cacheAt < prepare && prepare < install && install < typecheck && typecheck < ready && ready < test).toBe(true);
    const engines = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
    expect([fetched, second].sort()).toEqual(engines.split('||').map((range) => /\^(\d+)\./.exec(range)?.[1]).sort());
    expect(fs.readFileSync('.gitignore', 'utf8').split('\n')).toContain(`.ci/node${fetched}/`);
  });

  it('the README says which to run when', () => {
    const tests = /## Tests\n([\s\S]*?)\n## /.exec(fs.readFileSync('README.md', 'utf8'))?.[1] ?? '';
    for (const command of ['npm run test:unit', 'npm test', 'npm run test:node22', 'npm run test:node24']) expect(tests).toContain(command);
  });
});
