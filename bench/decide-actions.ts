/**
 * The per-action loop the CPU-cost benches share (bench/encryption-cost.ts,
 * bench/streaks-caps-cost.ts): the bench mix through the real decider for random players, each
 * decision handed to `write` (which evolves the player's state from what it wrote), then the
 * answer's JSON, as the service does.
 */
import { decideProcessAction } from '../command-api/process-action/decider';
import type { Catalog } from '../domain/catalog/schema';
import { initialPlayerState, type PlayerState } from '../domain/player/state';
import { actionBody, playerId, prng } from './workload';

export interface PlayerEntry {
  state: PlayerState;
  revision: number;
}

/** One side of a comparison: its players' states and its own random sequence, the same on every side. */
export interface Side {
  states: Map<string, PlayerEntry>;
  random: () => number;
  seq: number;
}

export const newSide = (): Side => ({ states: new Map(), random: prng(7), seq: 0 });

type Decision = Extract<ReturnType<typeof decideProcessAction>, { ok: true }>['value'];

/** Decides `count` actions at `clock.ts` on (10 ms apart); returns how many were accepted. */
export async function decideActions(
  side: Side,
  options: {
    catalog: Catalog;
    players: number;
    count: number;
    clock: { ts: number };
    /** Records a decision and evolves `entry` from it; none: the decider alone is timed. */
    write?: (player: string, entry: PlayerEntry, decision: Decision, ts: number) => Promise<void> | void;
  },
): Promise<number> {
  const { catalog, players, count, clock, write } = options;
  let actions = 0;
  for (let i = 0; i < count; i++) {
    const player = playerId('5eed0000', Math.floor(side.random() * players));
    let entry = side.states.get(player);
    if (!entry) side.states.set(player, (entry = { state: initialPlayerState(player), revision: -1 }));
    const body = actionBody(player, `r${side.seq++}`, side.random);
    const ts = (clock.ts += 10);
    const cmd = { ...body, timestamp: ts, multiplier: 1, details: body.details ?? [] };
    const decided = decideProcessAction(
      cmd,
      { player: entry.state, playerRevision: entry.revision, referenceTaken: false, activationsTaken: new Map() },
      { now: ts, random: side.random, newUid: () => `u${side.seq}`, catalog },
    );
    if (!decided.ok) continue;
    actions++;
    if (!write) continue;
    await write(player, entry, decided.value, ts);
    JSON.stringify(decided.value.answer);
  }
  return actions;
}
