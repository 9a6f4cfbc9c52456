/**
 * CPU profile helpers: the server child records a V8 CPU profile through node:inspector, maps its
 * positions back to the TypeScript sources (tsx compiles with inline source maps, so the raw
 * positions point into generated code), and this summarises self and inclusive time per function.
 *
 * CLI: `npx tsx bench/profile.ts bench/results/profile-process.cpuprofile [top]`.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { findSourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const ROOT = path.resolve(__dirname, '..');

/**
 * Rewrites call frames of tsx-compiled files to their TypeScript positions (in place), so the
 * saved profile and the summary both name `file.ts:line`. Must run in the profiled process,
 * where the source maps are registered.
 */
export function mapToSources(profile: CpuProfile): void {
  const cache = new Map<string, ReturnType<typeof findSourceMap> | null>();
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    if (!frame.url || frame.lineNumber < 0 || !/\.(ts|mts|cts)$/.test(frame.url)) continue;
    let map = cache.get(frame.url);
    if (map === undefined) {
      const file = frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url;
      map = findSourceMap(file) ?? findSourceMap(frame.url) ?? null;
      cache.set(frame.url, map);
    }
    // findEntry answers `{}` where nothing maps: the assertion names the fields it may have (tsc
    // needs it; the type-aware lint types findEntry otherwise and takes it for a no-op).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
    if (!entry || entry.originalLine === undefined) continue;
    if (entry.originalSource) frame.url = entry.originalSource;
    frame.lineNumber = entry.originalLine;
    frame.columnNumber = entry.originalColumn ?? 0;
  }
}

function post<T>(session: Session, method: string, params: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))),
  );
}

/**
 * Starts the V8 sampling profiler in this process; the returned function stops it and writes the
 * profile, mapped to the TypeScript sources, to `file` (loadable in Chrome DevTools too).
 */
export async function startCpuProfile(intervalUs = 250): Promise<(file: string) => Promise<CpuProfile>> {
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: intervalUs });
  await post(session, 'Profiler.start');
  return async (file) => {
    const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
    session.disconnect();
    mapToSources(profile);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    return profile;
  };
}

export interface FunctionTime {
  name: string;
  location: string;
  area: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}

export interface ProfileSummary {
  durationMs: number;
  sampledMs: number;
  functions: FunctionTime[];
  areas: { area: string; selfMs: number; selfPct: number }[];
}

function location(frame: CallFrame): string {
  if (!frame.url) return '(native)';
  let file = frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url;
  if (file.startsWith(ROOT + path.sep)) file = path.relative(ROOT, file);
  return `${file}:${frame.lineNumber + 1}`;
}

/** Where time goes by kind of code: a project folder, a package, node internals, GC. */
function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native: sqlite, crypto, ...)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `pkg ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  if (file.startsWith(ROOT + path.sep)) return path.relative(ROOT, file).split(path.sep).slice(0, 2).join('/');
  return file;
}

export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}\u0000${location(n.callFrame)}`;

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const areas = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let sampled = 0;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] precedes sample i; the time until the next sample is what sample i stands for.
    const us = deltas[i + 1] ?? deltas[i] ?? 0;
    const node = byId.get(samples[i]);
    if (!node) continue;
    sampled += us;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + us);
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const k = keyOf(byId.get(id)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const pct = (us: number) => (sampled ? (100 * us) / sampled : 0);
  const areaByKey = new Map(profile.nodes.map((n) => [keyOf(n), areaOf(n.callFrame)]));
  const functions = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => {
      const [name, loc] = key.split('\u0000');
      return {
        name,
        location: loc,
        area: areaByKey.get(key) ?? '',
        selfMs: us / 1000,
        selfPct: pct(us),
        totalMs: (total.get(key) ?? 0) / 1000,
        totalPct: pct(total.get(key) ?? 0),
      };
    });
  return {
    durationMs: (profile.endTime - profile.startTime) / 1000,
    sampledMs: sampled / 1000,
    functions,
    areas: [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => ({ area, selfMs: us / 1000, selfPct: pct(us) })),
  };
}

/** Inclusive time of the project's own functions (handlers, deciders, projectors), highest first. */
export function projectInclusive(
  profile: CpuProfile,
  top = 25,
): { name: string; location: string; totalPct: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = new Map<string, number>();
  let sampled = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const us = deltas[i + 1] ?? deltas[i] ?? 0;
    sampled += us;
    const seen = new Set<string>();
    for (let id: number | undefined = samples[i]; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const area = areaOf(n.callFrame);
      if (area.startsWith('pkg ') || area.startsWith('node') || area.startsWith('(') || !n.callFrame.url) continue;
      const k = `${n.callFrame.functionName || '(anonymous)'}\u0000${location(n.callFrame)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  return [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => {
      const [name, loc] = k.split('\u0000');
      return { name, location: loc, totalPct: sampled ? (100 * us) / sampled : 0 };
    });
}

export function formatSummary(
  summary: ProfileSummary,
  inclusive?: { name: string; location: string; totalPct: number }[],
): string {
  const lines: string[] = [];
  lines.push(`CPU profile: ${summary.durationMs.toFixed(0)} ms wall, ${summary.sampledMs.toFixed(0)} ms sampled`);
  lines.push('', 'Self time by area:');
  for (const a of summary.areas.slice(0, 15)) lines.push(`  ${a.selfPct.toFixed(1).padStart(5)}%  ${a.area}`);
  lines.push('', 'Top functions by self time (self%, inclusive%, function, location):');
  for (const f of summary.functions)
    lines.push(
      `  ${f.selfPct.toFixed(1).padStart(5)}%  ${f.totalPct.toFixed(1).padStart(5)}%  ${f.name}  ${f.location}`,
    );
  if (inclusive) {
    lines.push('', 'Project functions by inclusive time:');
    for (const f of inclusive) lines.push(`  ${f.totalPct.toFixed(1).padStart(5)}%  ${f.name}  ${f.location}`);
  }
  return lines.join('\n');
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npx tsx bench/profile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const top = Number(process.argv[3] ?? 30);
  console.log(formatSummary(summarizeProfile(profile, top), projectInclusive(profile, top)));
}
