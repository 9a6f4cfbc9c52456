/**
 * Imports point down only: app/ (and the cli/ and bench/ entry points) over command-api/,
 * read-api/, projections/ and webhooks/, all over shared/ and domain/. The read side and the projections
 * never reach into the command side, nor the other way, and neither shared/ nor domain/ imports anything
 * above it. The domain (domain/: events, player, stock, provisions, rules, catalog, time) imports no
 * adapter nor read model: the adapters (shared/adapters: stores, jobs, HTTP, auth, logging, config)
 * and the read models (shared/read-models) are built on it. Tests may import anything; no code imports a test.
 * Within command-api/, the pipeline imports neither the player nor HTTP, and a decider (and the
 * replay engine, command-api/replay/, which the deciders of simulate and recompute share) nothing
 * with I/O; the player's state is folded in place only by those that alone hold it.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..');

/** What each top-level folder (and each part of shared/) may import, besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  domain: [],
  'shared/adapters': ['domain'],
  'shared/read-models': ['domain', 'shared/adapters'],
  'command-api': ['shared', 'domain'],
  'read-api': ['shared', 'domain'],
  projections: ['shared', 'domain'],
  webhooks: ['shared', 'domain'],
  app: ['command-api', 'read-api', 'projections', 'webhooks', 'shared', 'domain'],
  cli: ['app', 'command-api', 'read-api', 'projections', 'webhooks', 'shared', 'domain'],
  bench: ['app', 'command-api', 'read-api', 'projections', 'webhooks', 'shared', 'domain'],
};

const isTest = (file: string) => file.endsWith('.test.ts') || file.startsWith('test/');

/** A path's layer: its top-level folder, or its part of shared/ (adapters, read models). */
const layerOf = (file: string): string => {
  const parts = file.split('/');
  return parts[0] === 'shared' ? parts.slice(0, 2).join('/') : parts[0];
};

/** The relative imports of a file, as paths from the root. */
const importsOf = (file: string, text: string): string[] =>
  ts
    .preProcessFile(text, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.posix.normalize(path.posix.join(path.posix.dirname(file), name)));

/** The command pipeline: it knows neither the domain's player nor HTTP (command-api/http.ts is the routes' side). */
const PIPELINE = [
  'command-api/command.ts',
  'command-api/reads.ts',
  'command-api/deps.ts',
  'command-api/decision.ts',
  'command-api/use-case.ts',
];
const PIPELINE_MAY_NOT = ['domain/player', 'shared/adapters/http'];

/**
 * What a decider may import: the domain, the decider contract, other deciders (and the steps a
 * decider is split into, under its steps/, held to the same rule), and the replay engine, which reads nothing.
 */
const DECIDER_MAY_IMPORT = [
  /^domain\//,
  /^command-api\/(decision|use-case|player-reads)$/,
  /^command-api\/[^/]+\/(decider|steps\/[^/]+)$/,
  /^command-api\/replay\/(replay|report)$/,
];
const isDecider = (file: string) => /^command-api\/[^/]+\/(decider|steps\/[^/]+)\.ts$/.test(file);

/**
 * The replay engine: every file of command-api/replay/ but replay-log.ts, which reads the log for
 * it from the EventStore. It decides again with the deciders, so it is held to their rule (its own
 * files besides), and scores the boards with the read model's pure functions, as the projector does.
 * Its players go to a ReplayedPlayers (replayed-players.ts), which spills to a file it is handed,
 * never opens one.
 */
const isReplayEngine = (file: string) =>
  /^command-api\/replay\/[^/]+\.ts$/.test(file) && file !== 'command-api/replay/replay-log.ts';
const REPLAY_ENGINE_MAY_IMPORT = [
  ...DECIDER_MAY_IMPORT,
  /^command-api\/replay\/(?!replay-log$)[^/]+$/,
  /^shared\/read-models\/leaderboards$/,
];

/**
 * Imports of the pipeline into the player or HTTP, and of a decider or the replay engine into
 * anything with I/O (a handler, a route, a port or any other adapter), as `from -> to`.
 */
export function impureImports(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (PIPELINE.includes(file))
      for (const target of importsOf(file, text))
        if (PIPELINE_MAY_NOT.some((no) => target === no || target.startsWith(`${no}/`)))
          found.push(`${file} -> ${target}`);
    if (isTest(file)) continue;
    const mayImport = isDecider(file) ? DECIDER_MAY_IMPORT : isReplayEngine(file) ? REPLAY_ENGINE_MAY_IMPORT : null;
    if (mayImport)
      for (const target of importsOf(file, text))
        if (!mayImport.some((allowed) => allowed.test(target))) found.push(`${file} -> ${target}`);
  }
  return found;
}

/** Every relative import of every source file that breaks the table, as `from -> to`. */
export function upwardImports(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (isTest(file)) continue;
    const layer = layerOf(file);
    const allowed = MAY_IMPORT[layer];
    if (!allowed) continue;
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
      const targetLayer = layerOf(target);
      if (targetLayer === layer) continue;
      const permitted = allowed.some((a) => targetLayer === a || targetLayer.startsWith(`${a}/`));
      if (!permitted || isTest(target)) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!['node_modules', '.git', 'data'].includes(entry.name)) walk(rel);
      } else if (entry.name.endsWith('.ts')) files.set(rel, fs.readFileSync(path.join(ROOT, rel), 'utf8'));
    }
  };
  walk('');
  return files;
}

/**
 * The player's in-place folds change the state they are given: only code that alone holds the
 * states it folds may use them (the state cache, the replay engine, the benchmarks' own players).
 */
const IN_PLACE_FOLDERS: readonly string[] = [
  'shared/adapters/event-store/player-states.ts',
  'command-api/replay/replay.ts',
  'command-api/replay/replay-log.ts',
  'bench/seed.ts',
  'bench/encryption-cost.ts',
  'bench/streaks-caps-cost.ts',
];

/** Source files outside the list above that name an in-place fold. */
export function inPlaceFoldUsers(files: ReadonlyMap<string, string>): string[] {
  return [...files]
    .filter(([file]) => !isTest(file) && file !== 'domain/player/state.ts')
    .filter(([file, text]) => /\bevolve(Standing)?InPlace\b/.test(text) && !IN_PLACE_FOLDERS.includes(file))
    .map(([file]) => file);
}

describe('the layers of the repository', () => {
  it('have no import that points up or sideways', () => {
    const files = sourceFiles();
    expect(files.size).toBeGreaterThan(100);
    expect(upwardImports(files)).toEqual([]);
  });

  it('keep the pipeline apart from the player and HTTP, and the deciders and the replay engine apart from I/O', () => {
    expect(impureImports(sourceFiles())).toEqual([]);
    const files = new Map([
      ['command-api/reads.ts', "import type { PlayerState } from '../domain/player/state';"],
      ['command-api/deps.ts', "import type { RequestContext } from '../shared/adapters/http/route';"],
      ['command-api/http.ts', "import type { Reply } from '../shared/adapters/http/route';"],
      [
        'command-api/buy-bundle/decider.ts',
        "import { provisionTimeout } from '../provision-transactions/timeout';\nimport { x } from '../currency-expiry/decider';",
      ],
      ['command-api/open-chest/decider.ts', "import { openChest } from './handler';\nimport { y } from './route';"],
      ['command-api/recompute/decider.ts', "import type { EventStore } from '../../shared/adapters/event-store/port';"],
      ['command-api/process-action/steps/caps.ts', "import { z } from '../handler';\nimport { w } from './awards';"],
      [
        'command-api/replay/replay.ts',
        [
          "import { shareOf } from '../../shared/adapters/event-store/port';",
          "import type { Simulation } from '../../shared/adapters/http/wire-shapes';",
          "import { processAction } from '../process-action/handler';",
          "import { recomputeRoutes } from '../recompute/route';",
          "import { decideReverseAction } from '../reverse-action/decider';",
          "import type { SimulationReport } from './report';",
          "import { boardChanges } from '../../shared/read-models/leaderboards';",
        ].join('\n'),
      ],
      ['command-api/replay/report.ts', "import type { RecordedEvent } from '../../shared/adapters/event-store/port';"],
      ['command-api/replay/replay-log.ts', "import type { EventStore } from '../../shared/adapters/event-store/port';"],
      [
        'command-api/replay/replay.test.ts',
        "import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';",
      ],
    ]);
    expect(impureImports(files)).toEqual([
      'command-api/reads.ts -> domain/player/state',
      'command-api/deps.ts -> shared/adapters/http/route',
      'command-api/buy-bundle/decider.ts -> command-api/provision-transactions/timeout',
      'command-api/open-chest/decider.ts -> command-api/open-chest/handler',
      'command-api/open-chest/decider.ts -> command-api/open-chest/route',
      'command-api/recompute/decider.ts -> shared/adapters/event-store/port',
      'command-api/process-action/steps/caps.ts -> command-api/process-action/handler',
      'command-api/replay/replay.ts -> shared/adapters/event-store/port',
      'command-api/replay/replay.ts -> shared/adapters/http/wire-shapes',
      'command-api/replay/replay.ts -> command-api/process-action/handler',
      'command-api/replay/replay.ts -> command-api/recompute/route',
      'command-api/replay/report.ts -> shared/adapters/event-store/port',
    ]);
  });

  it("fold the player's state in place only where the state is the folder's own", () => {
    expect(inPlaceFoldUsers(sourceFiles())).toEqual([]);
    const files = new Map([
      ['read-api/r.ts', "import { evolveInPlace } from '../domain/player/state';"],
      ['shared/adapters/event-store/player-states.ts', 'evolveInPlace(state, e);'],
    ]);
    expect(inPlaceFoldUsers(files)).toEqual(['read-api/r.ts']);
  });

  it('would report one that does (the check itself)', () => {
    const files = new Map([
      ['domain/a.ts', "import { b } from '../command-api/b';"],
      ['domain/e.ts', "import type { E } from '../shared/adapters/event-store/port';"],
      ['domain/v.ts', "import { view } from '../shared/read-models/view';"],
      [
        'shared/adapters/s.ts',
        "import { fold } from '../../domain/fold';\nimport { view } from '../read-models/view';",
      ],
      ['read-api/r.ts', "import type { X } from '../command-api/x';\nimport { s } from '../shared/s';"],
      ['projections/p.ts', "export { v } from '../read-api/v';"],
      ['command-api/c.ts', "import { spec } from '../test/support/spec';\nimport { own } from './own';"],
      ['app/main.ts', "import { all } from '../command-api/all';"],
      ['command-api/c.test.ts', "import { app } from '../app/main';"],
    ]);
    expect(upwardImports(files)).toEqual([
      'domain/a.ts -> command-api/b',
      'domain/e.ts -> shared/adapters/event-store/port',
      'domain/v.ts -> shared/read-models/view',
      'shared/adapters/s.ts -> shared/read-models/view',
      'read-api/r.ts -> command-api/x',
      'projections/p.ts -> read-api/v',
      'command-api/c.ts -> test/support/spec',
    ]);
  });
});
