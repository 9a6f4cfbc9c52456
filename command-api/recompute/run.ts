/**
 * A recompute run: the log replayed under the published catalog, and each affected player's
 * PlayerRecomputed appended at the revision the replay read, with the units of limited triggers'
 * stocks it takes or gives back. A player who acted meanwhile, or whose take finds a stock
 * changed since the replay read it, is replayed again. Each append is atomic on its own: a run
 * cut short leaves every player either recomputed or not, and running again completes it (a
 * recomputed player has nothing to change).
 */
import { WrongExpectedVersionError, type EventMetadata } from '../../shared/adapters/event-store/port';
import { PLAYER_FOLD } from '../../domain/player/fold';
import { STOCK_FOLD } from '../../domain/stock/stock';
import { appendWrites, refusedWrite } from '../command';
import { StreamReads } from '../reads';
import { ERRORS } from '../../domain/errors';
import { playerStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import type { CommandDeps } from '../deps';
import type { Replay, Replayed, StockRead } from '../replay/replay';
import { replayLog } from '../replay/replay-log';
import type { SimulationReport } from '../replay/report';
import { decideRecompute } from './decider';

export interface RecomputeOptions {
  recomputeUid: string;
  /** Each player's actions processed before their first one dated from this timestamp (Unix ms) on stand as they stand now (replayLog's `from`). */
  from?: number;
  dryRun: boolean;
  top: number;
  metadata: EventMetadata;
  onProgress?(eventsDone: number, eventsTotal: number): void;
  /** Players whose replay is kept in memory at most, the others spilled to a scratch file (REPLAY_PLAYERS_IN_MEMORY); default all. */
  playersInMemory?: number;
}

/** Players who acted during a run are replayed again, at most this many times. */
const MAX_PASSES = 20;

export async function recompute(
  deps: Pick<CommandDeps, 'events' | 'states' | 'catalog' | 'now' | 'random' | 'newUid'>,
  options: RecomputeOptions,
): Promise<{ report: SimulationReport; applied: boolean }> {
  const { catalog, version } = deps.catalog();
  let report: SimulationReport | null = null;
  let players: ReadonlySet<string> | undefined;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const replay = await replayLog(deps.events, catalog, {
      players,
      from: options.from,
      playersInMemory: options.playersInMemory,
      // Only the first pass is reported.
      ranked: !report,
      onProgress: (_read, position, head) => options.onProgress?.(Math.min(position, head), head),
    });
    try {
      report ??= replay.report(options.top);
      if (options.dryRun) return { report, applied: false };
      const acted = await applyPass(deps, options, { catalog, version }, replay);
      if (!acted.size) return { report, applied: true };
      players = acted;
    } finally {
      // The scratch file of the players spilled, if any, is removed.
      replay.replayed().close();
    }
  }
  throw new Error(`players kept acting during the recompute; ${MAX_PASSES} passes were not enough`);
}

/** Appends each replayed player's PlayerRecomputed; the players who acted meanwhile, to replay again. */
async function applyPass(
  deps: Pick<CommandDeps, 'events' | 'states' | 'catalog' | 'now' | 'random' | 'newUid'>,
  options: RecomputeOptions,
  { catalog, version }: ReturnType<CommandDeps['catalog']>,
  replay: Replay,
): Promise<Set<string>> {
  const acted = new Set<string>();
  // The stocks as read, and as this pass's own appends move them.
  const stocks = new Map<string, StockRead>(replay.stocks());
  const apply = async (replayed: Replayed): Promise<'done' | 'no room'> => {
    const player = { ...replayed, stocks };
    const decided = decideRecompute({ recomputeUid: options.recomputeUid, catalogVersion: version }, player, {
      now: deps.now(),
      random: deps.random,
      newUid: deps.newUid,
      catalog,
    });
    if (!decided.ok) {
      if (decided.failure.code === ERRORS.TOO_MANY_CONCURRENT_CHANGES.code) return 'no room';
      throw new Error(decided.failure.message);
    }
    const event = decided.value.answer;
    if (!event) return 'done';
    // Through the pipeline's one write, at the revisions the replay read: a player who acted
    // since, or a stock taken since, is replayed again.
    const read = new StreamReads(deps);
    const own = playerStream(event.playerId);
    read.known(own, PLAYER_FOLD, { state: replayed.before, revision: event.readRevision });
    for (const { stream } of decided.value.writes)
      if (stream !== own) {
        const stock = stocks.get(stream) ?? { taken: 0, revision: -1 };
        read.known(stream, STOCK_FOLD, { state: { taken: stock.taken }, revision: stock.revision });
      }
    const refused = refusedWrite(decided.value.writes, read);
    if (refused) throw new Error(refused.message);
    try {
      await appendWrites(deps, read, decided.value.writes, options.metadata);
      // The stock as read plus this append (not the revision it landed at: a return appended
      // after a live take must not hide that take from this pass's next take, which then conflicts).
      for (const w of decided.value.writes)
        for (const e of w.events)
          if (e.type === TRIGGER_ACTIVATIONS.taken || e.type === TRIGGER_ACTIVATIONS.returned) {
            const stock = stocks.get(w.stream) ?? { taken: 0, revision: -1 };
            const units = e.type === TRIGGER_ACTIVATIONS.taken ? e.data.units : -e.data.units;
            stocks.set(w.stream, { taken: stock.taken + units, revision: stock.revision + 1 });
          }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      acted.add(event.playerId);
    }
    return 'done';
  };
  // A player who takes units another player of this pass gives back is decided again after them.
  const waiting: Replayed[] = [];
  for (const player of replay.replayed().values()) if ((await apply(player)) === 'no room') waiting.push(player);
  for (const player of waiting) if ((await apply(player)) === 'no room') acted.add(player.before.playerId);
  return acted;
}
