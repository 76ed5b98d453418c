/**
 * Top self-time functions of V8 CPU profiles (`node --cpu-prof`), for
 * docs/benchmarks.md's before/after: which functions, and which packages or
 * source files, the serve process spent its own time in.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimeEntry {
  name: string;
  where: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  busyMs: number;
  idleMs: number;
  top: SelfTimeEntry[];
  /** Self time by package (node_modules/<name>), own source file, or V8/Node category. */
  byModule: SelfTimeEntry[];
}

/** node_modules/<pkg> (scoped too), a path below `root`, or the URL as given. */
function moduleOf(url: string, root: string): string {
  if (!url) return '(native / V8)';
  const file = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (nm) return nm[1]!;
  if (file.startsWith('node:')) return file;
  return path.isAbsolute(file) ? path.relative(root, file) : file;
}

/**
 * `window`: only samples taken between these two CLOCK_MONOTONIC times (µs,
 * V8's profile clock), e.g. the measured seconds without start-up.
 */
export function summariseProfile(file: string, root: string, window?: { fromUs: number; toUs: number }, top = 15): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample: attributed to sample i.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const modules = new Map<string, number>();
  let idleUs = 0;
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const mod = frame.url ? moduleOf(frame.url, root) : frame.functionName.startsWith('(') ? frame.functionName : '(native / V8)';
    // Sources run through tsx report lines of the transformed code: the file alone says more.
    const where = frame.url && !/\.tsx?$/.test(mod) ? `${mod}:${frame.lineNumber + 1}` : mod;
    const key = `${frame.functionName}@${where}`;
    const entry = fns.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    fns.set(key, entry);
    modules.set(mod, (modules.get(mod) ?? 0) + us);
  }
  const pct = (us: number) => (busyUs > 0 ? (us / busyUs) * 100 : 0);
  return {
    file,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    top: [...fns.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ name: e.name, where: e.where, ms: e.us / 1000, percent: pct(e.us) })),
    byModule: [...modules.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([mod, us]) => ({ name: mod, where: '', ms: us / 1000, percent: pct(us) })),
  };
}

export function profileMarkdown(summary: ProfileSummary, title: string): string {
  const lines = [
    `#### ${title}`,
    '',
    `busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms (${path.basename(summary.file)})`,
    '',
    '| self ms | % of busy | function | where |',
    '|---:|---:|---|---|',
    ...summary.top.map((e) => `| ${e.ms.toFixed(1)} | ${e.percent.toFixed(1)} | \`${e.name}\` | ${e.where} |`),
    '',
    '| self ms | % of busy | package / file |',
    '|---:|---:|---|',
    ...summary.byModule.slice(0, 10).map((e) => `| ${e.ms.toFixed(1)} | ${e.percent.toFixed(1)} | ${e.name} |`),
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // node --import tsx bench/lib/cpu-profile.ts FILE.cpuprofile…
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
  for (const f of process.argv.slice(2)) process.stdout.write(profileMarkdown(summariseProfile(f, root), path.basename(f)) + '\n\n');
}
