/** `simulate`: what a draft catalog would change had it always been in force, replayed here on the store; nothing is written. */
import { simulate } from '../command-api/replay/replay-log';
import type { SimulationReport } from '../command-api/replay/report';
import { loadCatalogFile } from '../domain/catalog/load';
import type { EventStore } from '../shared/adapters/event-store/port';
import { canonicalPlayerId } from '../domain/ids';
import { UsageError, writeLine } from './output';
import { progressReporter, type ProgressWriter } from './progress';

export interface SimulateOptions {
  catalog: string;
  players: string[];
  json: boolean;
  /** Where progress goes (stderr by default; shown on a terminal only). */
  progressTo?: ProgressWriter;
}

/** The players listed, as the API's default `top`. */
const TOP = 100;

/** Exit 1 when the draft catalog is invalid (one line per problem on stderr), else 0. */
export async function runSimulation(events: EventStore, options: SimulateOptions): Promise<number> {
  const players = options.players.map((given) => {
    const playerId = canonicalPlayerId(given);
    if (!playerId) throw new UsageError(`simulate: --player must be a UUID, got "${given}"`);
    return playerId;
  });
  const loaded = await loadCatalogFile(options.catalog);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.problems.join('\n')}\n`);
    return 1;
  }
  const progress = progressReporter({ label: 'simulate', to: await events.headPosition(), writer: options.progressTo });
  const report = await simulate(events, loaded.catalog, {
    players: players.length ? new Set(players) : undefined,
    top: TOP,
    onProgress: (done, position) => progress.update(done, position),
  });
  progress.done();
  if (options.json) await writeLine(JSON.stringify(report, null, 2));
  else for (const line of summary(report, options.catalog)) await writeLine(line);
  return 0;
}

/** The report as lines to read; `under` names the catalog, `written` what became of it. */
export function summary(r: SimulationReport, file: string, written = 'Nothing was written.'): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const t = r.totals;
  const out = [
    `Under ${file}: ${n(r.eventsReplayed)} events replayed, ${n(r.actionsRedecided)} actions decided again. ${written}`,
    `${n(r.playersAffected)} players affected: points ${n(t.pointsBefore)} -> ${n(t.pointsAfter)}, badges +${t.badgesGained} -${t.badgesLost}, levels changed ${t.levelsChanged}.`,
  ];
  if (r.players.length) {
    out.push(
      '',
      `Players (largest change in points first${r.players.length < r.playersAffected ? `, the first ${r.players.length}` : ''}):`,
    );
    for (const p of r.players) {
      const parts = [`points ${p.pointsBefore} -> ${p.pointsAfter}`];
      if (p.levelBefore !== p.levelAfter) parts.push(`level ${p.levelBefore ?? 'none'} -> ${p.levelAfter ?? 'none'}`);
      if (p.badgesGained.length) parts.push(`gains ${p.badgesGained.join(', ')}`);
      if (p.badgesLost.length) parts.push(`loses ${p.badgesLost.join(', ')}`);
      for (const b of p.balances) parts.push(`${b.deliverableUid} ${b.before} -> ${b.after}`);
      out.push(`  ${p.playerId}  ${parts.join('; ')}`);
    }
  }
  for (const experiment of r.experiments ?? []) {
    out.push('', `Experiment ${experiment.uid}, its players under the draft by variant:`);
    for (const v of experiment.variants)
      out.push(
        `  ${v.uid}: ${n(v.players)} player${v.players === 1 ? '' : 's'}, points ${n(v.pointsBefore)} -> ${n(v.pointsAfter)}, badges +${v.badgesGained} -${v.badgesLost}, levels changed ${v.levelsChanged}`,
      );
  }
  for (const board of r.boards) {
    out.push('', `Board ${board.leaderboardUid}, top 10 now | under the draft:`);
    const rows = Math.max(board.before.length, board.after.length);
    const cell = (s?: { rank: number; userId: string; points: number }) =>
      (s ? `${s.rank}. ${s.userId} ${s.points}` : '').padEnd(52);
    for (let i = 0; i < rows; i++) out.push(`  ${cell(board.before[i])} | ${cell(board.after[i]).trimEnd()}`);
  }
  out.push(
    '',
    r.problems.length
      ? `Problems (recorded facts the draft makes impossible; they stand as recorded):`
      : 'Problems: none.',
  );
  for (const p of r.problems)
    out.push(p.playerId ? `  #${p.position} ${p.type} of ${p.playerId}: ${p.message}` : `  ${p.message}`);
  return out;
}
