/**
 * The replay read from the EventStore: the log's pages handed to a Replay (replay.ts, which reads
 * nothing), what simulate reports and a recompute writes.
 */
import type { Catalog } from '../../domain/catalog/schema';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { playerEventOf } from '../../domain/events';
import { evolveInPlace, initialPlayerState } from '../../domain/player/state';
import { evolveStock, type StockState } from '../../domain/stock/stock';
import { CATALOG_STREAM, playerStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { ScratchFile } from '../../shared/adapters/scratch-file';
import { ACTIVATIONS_PREFIX, activationsHeld, Replay, triggerLimitsOfAnyGame, type Share } from './replay';
import { ReplayedPlayers } from './replayed-players';
import type { SimulationReport } from './report';

export interface SimulateOptions {
  /** Only these players (canonical ids) are replayed; default: all. */
  players?: ReadonlySet<string>;
  /** At most this many players in the answer. */
  top: number;
  /**
   * Each player's actions processed before their first action dated on or after this timestamp
   * (Unix ms) stand as they stand now (an earlier recompute's decisions included); default: every
   * action is decided again.
   */
  from?: number;
  /** Called after each page of the log: events read so far, the position reached, the last position; what it throws stops the replay. */
  onProgress?(events: number, position: number, head: number): void;
}

/**
 * Events read at a time: a parsed page stays alive while it is replayed, so every collection of
 * the young generation copies it, and a larger one is more often promoted out of it (5,000
 * promoted a quarter more than 1,000; on 200,000 events 1,000 left 90 MiB more in the heap than
 * 200 and took a tenth more CPU, 100 did no better than 200).
 */
const PAGE = 200;
/**
 * The streams a replay reads: the players', the limited triggers' activations, and the catalog's
 * versions (the boards in force). References, provisions and the other stocks are left in the store.
 */
const REPLAYED_STREAMS = [playerStream(''), ACTIVATIONS_PREFIX, CATALOG_STREAM];

/** The longest a replay keeps the thread between two turns of its event loop. */
const SLICE_MS = 10;

/** Lets the event loop answer what waits (requests, I/O), then gives the end of the next slice. */
async function yieldToRequests(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  return performance.now() + SLICE_MS;
}

/** Replays the log up to its head at the start under `draft` and reports what would differ. */
export async function simulate(
  events: EventStore,
  draft: Catalog,
  options: SimulateOptions,
): Promise<SimulationReport> {
  // A report needs neither each action's board contribution nor the changed actions: only a recompute writes those.
  return (await replayLog(events, draft, { ...options, recompute: false })).report(options.top);
}

/** The log replayed up to its head at the start: what simulate reports and recompute writes. */
export async function replayLog(
  events: EventStore,
  draft: Catalog,
  options: Omit<SimulateOptions, 'top'> & {
    /** Whether what a recompute writes is followed: each player's leaderboard contributions (scoresBefore, scoresAfter) and changed actions; default true. */
    recompute?: boolean;
    /** Only this share of the players, the others' streams not read (a simulation split between threads; not with `players`). */
    share?: Share;
    /** The last position replayed, the same for every share; default the head at the start. */
    head?: number;
    /**
     * Players kept in memory at most, the others spilled to a scratch file (ReplayedPlayers);
     * default all in memory. The caller closes `replayed()` once done with it, which removes the file.
     */
    playersInMemory?: number;
    /**
     * Whether the all-time boards are ranked, for the report; default true. Without them the
     * replay makes no report: a recompute's later pass, which reads none, then keeps nothing of
     * the players not replayed (their contributions to the boards, in memory).
     */
    ranked?: boolean;
  },
): Promise<Replay> {
  if (options.share && options.players) throw new Error('a replay of some players is not split into shares');
  const head = options.head ?? (await events.headPosition());
  const standing = options.players ? await activationsStanding(events, draft, options.players, head) : undefined;
  const players =
    options.playersInMemory === undefined
      ? new ReplayedPlayers()
      : new ReplayedPlayers(options.playersInMemory, () => new ScratchFile());
  const replay = new Replay(
    draft,
    options.players,
    options.from,
    standing,
    options.recompute ?? true,
    options.share,
    players,
    options.ranked ?? true,
  );
  try {
    await replayPages(events, replay, head, options);
  } catch (error) {
    players.close();
    throw error;
  }
  return replay;
}

/** The log's events up to `head`, handed to the replay a page at a time. */
async function replayPages(
  events: EventStore,
  replay: Replay,
  head: number,
  options: Pick<SimulateOptions, 'onProgress'> & { share?: Share },
): Promise<void> {
  const share = options.share && { prefix: playerStream(''), ...options.share };
  let from = 0;
  let read = 0;
  let yieldAt = performance.now() + SLICE_MS;
  for (;;) {
    // A replay never reads the metadata: it is not decoded.
    const page = await events.readAll({
      fromPosition: from,
      maxCount: PAGE,
      streamPrefixes: REPLAYED_STREAMS,
      withoutMetadata: true,
      ...(share ? { share } : {}),
    });
    for (const event of page) {
      if (event.position > head) break;
      replay.apply(event);
      // A long replay shares the process: requests are answered at least every SLICE_MS, however
      // long a page takes (a draft whose rules make each action costly).
      if (performance.now() >= yieldAt) yieldAt = await yieldToRequests();
    }
    read += page.length;
    if (page.length) from = page[page.length - 1].position;
    options.onProgress?.(read, Math.min(from, head), head);
    if (page.length < PAGE || from >= head) break;
    yieldAt = await yieldToRequests();
  }
}

/**
 * When only some players are replayed, the activations of the triggers limited in any game that the others hold stand,
 * whenever they took them: each trigger's stock at the head, less what the replayed players hold.
 */
async function activationsStanding(
  events: EventStore,
  draft: Catalog,
  players: ReadonlySet<string>,
  head: number,
): Promise<Map<string, number>> {
  const standing = new Map<string, number>();
  for (const uid of triggerLimitsOfAnyGame(draft).keys()) {
    let stock: StockState = { taken: 0 };
    for (const e of await events.readStream(stockStream(TRIGGER_ACTIVATIONS, uid)))
      if (e.position <= head) stock = evolveStock(stock, e);
    standing.set(uid, stock.taken);
  }
  for (const playerId of players) {
    const state = initialPlayerState(playerId);
    for (const recorded of await events.readStream(playerStream(playerId))) {
      const event = recorded.position <= head ? playerEventOf(recorded) : null;
      if (event) evolveInPlace(state, event);
    }
    for (const [uid, held] of activationsHeld(state)) standing.set(uid, Math.max(0, (standing.get(uid) ?? 0) - held));
  }
  return standing;
}
