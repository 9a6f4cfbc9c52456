/**
 * The players of a replay (replay.ts), as recorded and as replayed: the most recently replayed
 * ones in memory, at most `inMemory` of them, the others spilled to a scratch file once there are
 * more (REPLAY_PLAYERS_IN_MEMORY). What a replay holds per player (its two states, what a reversal
 * or a recompute reads of each action, its contributions to the boards the report ranks) then
 * stops growing with their number; the result does not change: a player spilled is the same
 * player read back, and the players are handed out in the order the log first names them, spilled
 * or not.
 */
import { deserialize, serialize } from 'node:v8';
import { sharedEmptiesRestored } from '../../domain/player/state';
import type { Replayed, StockRead } from './replay';

/** Where players go past the ceiling (shared/adapters/scratch-file.ts): records by key, in the order of `seq`. */
export interface SpillFile {
  put(records: readonly [seq: number, key: string, value: Buffer][]): void;
  get(key: string): Buffer | undefined;
  inOrder(): Iterable<[seq: number, key: string, value: Buffer]>;
  close(): void;
}

interface Held {
  /** The order the log first named the player in. */
  seq: number;
  player: Replayed;
}

export class ReplayedPlayers {
  /** Least recently replayed first (a player replayed again is moved to the end). */
  private readonly held = new Map<string, Held>();
  /** Players ever held: the next one's seq. */
  private count = 0;
  private spilled: SpillFile | null = null;
  /** Every player's `stocks` is the replay's one map: not written out with each, given back on reading. */
  private stocks: ReadonlyMap<string, StockRead> | null = null;

  constructor(
    /** Players kept in memory at most; default all. */
    private readonly inMemory = Infinity,
    private readonly spillFile?: () => SpillFile,
  ) {
    if (!(inMemory >= 1)) throw new Error(`a replay keeps at least one player in memory, not ${inMemory}`);
  }

  /** The player, read back from the scratch file when spilled; undefined for a player not replayed yet. */
  get(playerId: string): Replayed | undefined {
    const held = this.held.get(playerId);
    if (held) {
      if (this.spillFile) {
        // The most recently replayed go last.
        this.held.delete(playerId);
        this.held.set(playerId, held);
      }
      return held.player;
    }
    const value = this.spilled?.get(playerId);
    if (!value) return undefined;
    const { seq, player } = this.decode(value);
    this.hold(playerId, { seq, player });
    return player;
  }

  /** A player replayed for the first time. */
  add(playerId: string, player: Replayed): void {
    this.stocks ??= player.stocks;
    this.hold(playerId, { seq: (this.count += 1), player });
  }

  /** Every player replayed with their id, in the order the log first named them; those spilled are read back one page at a time. */
  *[Symbol.iterator](): Generator<[string, Replayed]> {
    const inMemory = [...this.held].sort((a, b) => a[1].seq - b[1].seq);
    let next = 0;
    if (this.spilled)
      for (const [seq, playerId, value] of this.spilled.inOrder()) {
        // Held in memory: the record on file is an older copy.
        if (this.held.has(playerId)) continue;
        for (; next < inMemory.length && inMemory[next][1].seq < seq; next++)
          yield [inMemory[next][0], inMemory[next][1].player];
        yield [playerId, this.decode(value).player];
      }
    for (; next < inMemory.length; next++) yield [inMemory[next][0], inMemory[next][1].player];
  }

  *values(): Generator<Replayed> {
    for (const [, player] of this) yield player;
  }

  /** Removes the scratch file, if any. */
  close(): void {
    this.spilled?.close();
    this.spilled = null;
  }

  private hold(playerId: string, held: Held): void {
    this.held.set(playerId, held);
    if (this.held.size <= this.inMemory) return;
    if (!this.spillFile)
      throw new Error(`more than ${this.inMemory} players in memory, and no scratch file to spill to`);
    this.spilled ??= this.spillFile();
    // An eighth at a time, in one transaction: one write per player spilled would cost more than the replay.
    const out: [number, string, Buffer][] = [];
    const spill = Math.max(1, Math.ceil(this.inMemory / 8));
    for (const [id, { seq, player }] of this.held) {
      if (out.length >= spill) break;
      out.push([seq, id, serialize({ seq, player: { ...player, stocks: undefined } })]);
    }
    for (const [, id] of out) this.held.delete(id);
    this.spilled.put(out);
  }

  private decode(value: Buffer): Held {
    const held = deserialize(value) as Held;
    held.player.stocks = this.stocks!;
    sharedEmptiesRestored(held.player.before);
    sharedEmptiesRestored(held.player.after);
    return held;
  }
}
