/** Benchmark settings, from the environment (see bench/README.md). */

export interface BenchConfig {
  quick: boolean;
  only: Set<number>;
  warmupMs: number;
  /** Figures 1 and 2: measured window. */
  durationMs: number;
  /** Figure 1: the bare and the process windows alternate in this many rounds (same background load). */
  rounds: number;
  connections: number;
  nestedConnections: number;
  nestedBatch: number;
  /** Figures 1-3: players the mix picks from. */
  players: number;
  lagRate: number;
  /** Figure 3: actions per request (the rate is in actions). */
  lagBatch: number;
  lagDurationMs: number;
  rebuildEvents: number;
  rebuildEventsPerPlayer: number;
  historyEvents: number;
  historyRequests: number;
  rssPlayers: number;
  rssConnections: number;
  /** Figure 7: events in the store a restart starts over. */
  restartEvents: number;
  /** Figure 1: how long the webhook receiver takes to answer each delivery. */
  webhookReceiverMs: number;
  logLevel: string;
  profile: boolean;
  keep: boolean;
  /** Figure 1: also load a service whose catalog has no streaks and caps, in the same alternating rounds. */
  comparePlain: boolean;
  /** Figure 1: also load a service whose personal fields are written in plain text, in the same alternating rounds. */
  compareEncryption: boolean;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: must be a non-negative number, got "${raw}"`);
  return value;
}

export function readBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  const only = new Set(
    (env.BENCH_ONLY ?? '1,2,3,4,5,6,7')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number),
  );
  for (const f of only)
    if (!(Number.isInteger(f) && f >= 1 && f <= 7))
      throw new Error(`BENCH_ONLY: figures are 1 to 7, got "${env.BENCH_ONLY}"`);
  const seconds = num(env, 'BENCH_SECONDS', quick ? 3 : 20);
  const connections = num(env, 'BENCH_CONNECTIONS', 50);
  return {
    quick,
    only,
    warmupMs: num(env, 'BENCH_WARMUP_SECONDS', quick ? 1 : 3) * 1000,
    durationMs: seconds * 1000,
    rounds: Math.max(1, Math.floor(num(env, 'BENCH_ROUNDS', quick ? 1 : 4))),
    connections,
    nestedConnections: num(env, 'BENCH_NESTED_CONNECTIONS', 10),
    nestedBatch: num(env, 'BENCH_NESTED_BATCH', 100),
    players: num(env, 'BENCH_PLAYERS', quick ? 1000 : 5000),
    lagRate: num(env, 'BENCH_LAG_RATE', 1000),
    lagBatch: Math.max(1, num(env, 'BENCH_LAG_BATCH', 10)),
    lagDurationMs: num(env, 'BENCH_LAG_SECONDS', quick ? 3 : Math.min(15, seconds)) * 1000,
    rebuildEvents: num(env, 'BENCH_REBUILD_EVENTS', quick ? 50_000 : 1_000_000),
    rebuildEventsPerPlayer: num(env, 'BENCH_REBUILD_EVENTS_PER_PLAYER', 50),
    historyEvents: num(env, 'BENCH_HISTORY_EVENTS', quick ? 5_000 : 100_000),
    historyRequests: num(env, 'BENCH_HISTORY_REQUESTS', quick ? 50 : 300),
    rssPlayers: num(env, 'BENCH_RSS_PLAYERS', quick ? 5_000 : 1_000_000),
    rssConnections: num(env, 'BENCH_RSS_CONNECTIONS', 10),
    restartEvents: num(env, 'BENCH_RESTART_EVENTS', quick ? 50_000 : 1_000_000),
    webhookReceiverMs: num(env, 'BENCH_WEBHOOK_RECEIVER_MS', 200),
    logLevel: env.BENCH_LOG_LEVEL || 'info',
    profile: env.BENCH_PROFILE === '1' || env.BENCH_PROFILE === 'true',
    keep: env.BENCH_KEEP === '1' || env.BENCH_KEEP === 'true',
    comparePlain: env.BENCH_COMPARE_PLAIN === '1' || env.BENCH_COMPARE_PLAIN === 'true',
    compareEncryption: env.BENCH_COMPARE_ENCRYPTION === '1' || env.BENCH_COMPARE_ENCRYPTION === 'true',
  };
}
