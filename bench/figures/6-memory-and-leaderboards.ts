/**
 * Figure 6: peak RSS, leaderboard reads and a league cohort's standings with 1,000,000 players.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mergeResults, newAgent, percentile, runAll, send, sortedOf } from '../load';
import { actionBody, BENCH_CATALOG_FILE, playerId, prng, runTag, type ActionBody } from '../workload';
import { GIB, MILLION, HEADERS, type Context, post, row, log, summaryOf, startServer, Outcomes } from './context';

/** Players on the board when the reads are taken the first time: what "never scans" compares the full board with. */
const FIRST_READS_AT = 10_000;

export async function figure6(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(
    `figure 6: one action for each of ${config.rssPlayers.toLocaleString('en')} players (nested batches of ${config.nestedBatch})`,
  );
  // The bench catalog with a weekly league: what its players cost is part of the figure, and the
  // other figures' catalog stays as it was, so their numbers compare with earlier runs.
  const server = await startServer(ctx, 'fig6', { env: { BENCH_CATALOG: leagueCatalogFile(ctx.tmp) } });
  const before = await server.ask<Record<string, number>>('stats');
  const tag = runTag();
  const random = prng(6);
  const outcomes = new Outcomes();
  /** Players [from, to), one action each, in nested batches. */
  const load = (from: number, to: number) => {
    let next = from;
    return runAll({
      port: server.ready.port as number,
      connections: config.rssConnections,
      next: () => {
        if (next >= to) return null;
        const batch: ActionBody[] = [];
        // The first action opens the batch: one that cannot fail (a failed outer action fails the request).
        for (; batch.length < config.nestedBatch && next < to; next++)
          batch.push(actionBody(playerId(tag, next), `${tag}-m${next}`, random, batch.length ? undefined : 'play'));
        const [outer, ...actions] = batch;
        return post(JSON.stringify(actions.length ? { ...outer, actions } : outer));
      },
      onAnswer: (_spec, answer) => outcomes.addAnswer(answer),
    });
  };
  const port = server.ready.port as number;
  // In two halves: what the second half adds is what players cost, without the start-up's growth.
  // The reads at 10,000 players come inside the first half, long before the peak.
  const half = Math.floor(config.rssPlayers / 2);
  const early = config.rssPlayers > 2 * FIRST_READS_AT ? FIRST_READS_AT : 0;
  const parts = early ? [await load(0, early)] : [];
  // Resident memory now, not the peak: what the service holds from here on, caches included.
  const atEarly = early ? await server.ask<Record<string, number>>('stats') : null;
  const readsEarly = early ? await leaderboardReads(port, tag, early) : null;
  const leagueEarly = early ? await leagueReads(port, tag, early) : null;
  parts.push(await load(early, half));
  const atHalf = await server.ask<Record<string, number>>('stats');
  // BENCH_HEAP_SNAPSHOT=dir: heap snapshots at half and at all the players, to see what the live heap
  // holds per player (bench/heap-owners.ts); a snapshot takes memory itself, so the peak is not meaningful then.
  const snapshots = process.env.BENCH_HEAP_SNAPSHOT;
  const snapshot = (players: number) =>
    server.ask('heap-snapshot', { file: path.join(snapshots!, `figure6-${players}.heapsnapshot`) });
  if (snapshots) await snapshot(half);
  parts.push(await load(half, config.rssPlayers));
  const run = mergeResults(parts);
  const stats = await server.ask<Record<string, number>>('stats');
  const afterGc = await server.ask<Record<string, number>>('stats', { gc: true });
  if (snapshots) await snapshot(config.rssPlayers);
  // After the memory figures, which the reads must not move.
  const reads = await leaderboardReads(port, tag, config.rssPlayers);
  const league = await leagueReads(port, tag, config.rssPlayers);
  await server.stop();
  const seconds = run.elapsedMs / 1000;
  log(
    `  ${outcomes.actions} actions in ${seconds.toFixed(1)} s (${(outcomes.actions / seconds).toFixed(0)}/s); peak RSS ${(stats.maxRssBytes / 1024 ** 2).toFixed(0)} MiB, heap used ${(stats.heapUsedBytes / 1024 ** 2).toFixed(0)} MiB, live heap after a full GC ${(afterGc.heapUsedBytes / 1024 ** 2).toFixed(0)} MiB (RSS ${(afterGc.rssBytes / 1024 ** 2).toFixed(0)} MiB)`,
  );
  row(ctx, 6, `loading ${config.rssPlayers.toLocaleString('en')} players`, outcomes.actions / seconds, 'actions/s');
  row(ctx, 6, 'live heap after full GC', afterGc.heapUsedBytes / 1024 ** 2, 'MiB');
  row(ctx, 6, 'RSS after full GC', afterGc.rssBytes / 1024 ** 2, 'MiB');
  row(ctx, 6, 'peak RSS', stats.maxRssBytes / 1024 ** 2, 'MiB', { op: '<=', limit: 600 });
  // What each player of the second half added to the peak, carried on to a million: every
  // per-player structure (caches, read models) grows linearly, so the line bounds what 1,000,000 players take.
  const perPlayerBytes = (stats.maxRssBytes - atHalf.maxRssBytes) / (config.rssPlayers - half);
  const projectedBytes = stats.maxRssBytes + perPlayerBytes * Math.max(0, MILLION - config.rssPlayers);
  log(
    `  peak RSS grew ${(perPlayerBytes / 1024).toFixed(2)} KiB per player: ${(projectedBytes / GIB).toFixed(2)} GiB projected at ${MILLION.toLocaleString('en')} players`,
  );
  row(ctx, 6, 'peak RSS added per player', perPlayerBytes / 1024, 'KiB');
  if (atEarly)
    row(
      ctx,
      6,
      `RSS grown per player from ${early.toLocaleString('en')} to ${config.rssPlayers.toLocaleString('en')} players`,
      (stats.rssBytes - atEarly.rssBytes) / (config.rssPlayers - early) / 1024,
      'KiB',
      { op: '<=', limit: 2 },
    );
  row(ctx, 6, 'peak RSS projected at 1,000,000 players', projectedBytes / 1024 ** 2, 'MiB', {
    op: '<=',
    limit: (2 * GIB) / 1024 ** 2,
    shown: '2048 (2 GiB)',
  });
  const players = config.rssPlayers.toLocaleString('en');
  for (const [at, r] of [
    [early, readsEarly],
    [config.rssPlayers, reads],
  ] as const) {
    if (!r) continue;
    log(
      `  leaderboard over ${at.toLocaleString('en')} players, p50 of one request at a time: top 10 ${r.top10P50Ms.toFixed(2)} ms, top 1,000 ${r.top1000P50Ms.toFixed(2)} ms; ` +
        `a player's rank ${r.rankP50Ms.toFixed(2)} ms (max ${r.rankMaxMs.toFixed(2)} ms, ${r.sampled} players, ranks down to ${r.lowestRank}); around=5 ${r.aroundP50Ms === null ? 'n/a (not served)' : `${r.aroundP50Ms.toFixed(2)} ms`}`,
    );
  }
  const targets = { top10P50Ms: 5, rankP50Ms: 5, aroundP50Ms: 10, top1000P50Ms: 50 } as const;
  const names = {
    top10P50Ms: 'top 10',
    rankP50Ms: "a player's rank (top=1, playerId)",
    aroundP50Ms: 'around me (around=5)',
    top1000P50Ms: 'top 1,000',
  } as const;
  for (const key of Object.keys(targets) as (keyof typeof targets)[]) {
    if (readsEarly) row(ctx, 6, `${names[key]} at ${early.toLocaleString('en')} players, p50`, readsEarly[key], 'ms');
    row(ctx, 6, `${names[key]} at ${players} players, p50`, reads[key], 'ms', { op: '<=', limit: targets[key] });
    // "Never scans" in numbers: the same read on the full board and on the small one.
    const small = readsEarly?.[key];
    const large = reads[key];
    if (small != null && large !== null)
      row(ctx, 6, `${names[key]}: ${players} / ${early.toLocaleString('en')} players`, large / small, 'x', {
        op: '<=',
        limit: 3,
      });
  }
  // A league: every player loaded is in its week, in cohorts of 30; a cohort's standings are one indexed read.
  for (const [at, r] of [
    [early, leagueEarly],
    [config.rssPlayers, league],
  ] as const) {
    if (!r) continue;
    log(
      `  league over ${at.toLocaleString('en')} players (${r.cohorts.toLocaleString('en')} cohorts of 30 or fewer), p50 of one request at a time: a player's cohort standings ${r.p50Ms.toFixed(2)} ms (max ${r.maxMs.toFixed(2)} ms, ${r.sampled} players)`,
    );
  }
  if (leagueEarly)
    row(
      ctx,
      6,
      `a cohort's standings (GET /v1/leagues) at ${early.toLocaleString('en')} players, p50`,
      leagueEarly.p50Ms,
      'ms',
    );
  row(ctx, 6, `a cohort's standings (GET /v1/leagues) at ${players} players, p50`, league.p50Ms, 'ms', {
    op: '<=',
    limit: 5,
  });
  ctx.details.figure6 = {
    players: config.rssPlayers,
    seconds,
    perPlayerBytes,
    projectedBytes,
    atHalf,
    outcomes,
    requests: summaryOf(run),
    leaderboardReads: reads,
    leaderboardReadsEarly: readsEarly && { players: early, ...readsEarly },
    leagueReads: league,
    leagueReadsEarly: leagueEarly && { players: early, ...leagueEarly },
    before,
    after: stats,
    afterFullGc: afterGc,
  };
}

/** The bench catalog and a weekly league in cohorts of 30 (docs/catalog.md, "Leagues"). */
export const BENCH_LEAGUE = `
leagues:
  - uid: lg-weekly
    label: Weekly league
    period: Week
    cohortSize: 30
    tiers:
      - { uid: bronze, label: Bronze, promote: 7 }
      - { uid: silver, label: Silver, promote: 5, demote: 5 }
      - { uid: gold, label: Gold, demote: 5, prizes: [{ ranks: [1, 1], points: 100 }] }
`;

function leagueCatalogFile(dir: string): string {
  const file = path.join(dir, 'catalog-league.yaml');
  fs.writeFileSync(file, fs.readFileSync(BENCH_CATALOG_FILE, 'utf8') + BENCH_LEAGUE);
  return file;
}

/**
 * Reads of the all-time board over the players just loaded, one at a time: pages of the top 1,000
 * and of the top 1, and the top 1 with the own standing of players spread over the load order
 * (their ranks run down to the last places, where a count of the players ahead would read nearly
 * all of them): the difference of the last two is what a rank costs.
 */
interface LeaderboardReads {
  top10P50Ms: number;
  top1000P50Ms: number;
  rankP50Ms: number;
  rankMaxMs: number;
  /** null: the service does not answer `around` (a version before it). */
  aroundP50Ms: number | null;
  sampled: number;
  lowestRank: number;
}

/** Figure 6's reads of the all-time board, one request at a time, over the first `players` players of the load order. */
async function leaderboardReads(port: number, tag: string, players: number): Promise<LeaderboardReads> {
  const agent = newAgent(1);
  const timed = async (
    path: string,
  ): Promise<[number, { data: { player?: { rank: number } | null; around?: unknown[] }[] }]> => {
    const startedAt = performance.now();
    const answer = await send(agent, port, { method: 'GET', path, headers: HEADERS });
    const ms = performance.now() - startedAt;
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body}`);
    return [ms, JSON.parse(answer.body)];
  };
  const p50 = (values: number[]) => percentile(sortedOf(values), 50);
  try {
    const top10: number[] = [];
    const top1000: number[] = [];
    for (let i = 0; i < 20; i++) {
      top1000.push((await timed('/v1/admin/leaderboards/lb-all?top=1000'))[0]);
      top10.push((await timed('/v1/admin/leaderboards/lb-all?top=10'))[0]);
    }
    const sampled = 100;
    const rank: number[] = [];
    const around: number[] = [];
    let aroundServed = true;
    let lowestRank = 0;
    for (let i = 0; i < sampled; i++) {
      const player = playerId(tag, Math.floor((i * players) / sampled));
      const [ms, body] = await timed(`/v1/admin/leaderboards/lb-all?top=1&playerId=${player}`);
      rank.push(ms);
      lowestRank = Math.max(lowestRank, body.data[0].player?.rank ?? 0);
      const [aroundMs, aroundBody] = await timed(`/v1/admin/leaderboards/lb-all?top=1&playerId=${player}&around=5`);
      around.push(aroundMs);
      if (!Array.isArray(aroundBody.data[0].around)) aroundServed = false;
    }
    const ranks = sortedOf(rank);
    return {
      top10P50Ms: p50(top10),
      top1000P50Ms: p50(top1000),
      rankP50Ms: percentile(ranks, 50),
      rankMaxMs: ranks[ranks.length - 1],
      aroundP50Ms: aroundServed ? p50(around) : null,
      sampled,
      lowestRank,
    };
  } finally {
    agent.destroy();
  }
}

interface LeagueReads {
  p50Ms: number;
  maxMs: number;
  sampled: number;
  /** Cohorts of the players' tier this week (GET /v1/admin/leagues). */
  cohorts: number;
}

/** GET /v1/leagues/lg-weekly for players spread over the load order, one request at a time: each answers its cohort's standings. */
async function leagueReads(port: number, tag: string, players: number): Promise<LeagueReads> {
  const agent = newAgent(1);
  const timed = async (path: string): Promise<[number, { data: unknown }]> => {
    const startedAt = performance.now();
    const answer = await send(agent, port, { method: 'GET', path, headers: HEADERS });
    const ms = performance.now() - startedAt;
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body}`);
    return [ms, JSON.parse(answer.body)];
  };
  try {
    const sampled = 100;
    const times: number[] = [];
    for (let i = 0; i < sampled; i++) {
      const [ms, body] = await timed(
        `/v1/leagues/lg-weekly?playerId=${playerId(tag, Math.floor((i * players) / sampled))}`,
      );
      const { standings } = body.data as { standings: unknown[] };
      // A player who earned no points this week is in no cohort: their read answers no standings.
      if (standings.length > 0) times.push(ms);
    }
    if (times.length === 0) throw new Error('GET /v1/leagues: no sampled player is in a cohort');
    const [, admin] = await timed('/v1/admin/leagues');
    const tiers = (admin.data as { tiers: { cohorts: number }[] }[])[0].tiers;
    const sorted = sortedOf(times);
    return {
      p50Ms: percentile(sorted, 50),
      maxMs: sorted[sorted.length - 1],
      sampled: times.length,
      cohorts: tiers.reduce((sum, t) => sum + t.cohorts, 0),
    };
  } finally {
    agent.destroy();
  }
}
