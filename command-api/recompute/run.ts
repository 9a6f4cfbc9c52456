/**
 * A recompute run: the log replayed under the published catalog, and each affected player's
 * PlayerRecomputed appended at the revision the replay read. A player who acted meanwhile is
 * replayed again. Each append is atomic on its own: a run cut short leaves every player either
 * recomputed or not, and running again completes it (a recomputed player has nothing to change).
 */
import { randomUUID } from 'node:crypto';
import { WrongExpectedVersionError, type EventMetadata } from '../../shared/adapters/event-store/port';
import type { Simulation } from '../../shared/adapters/http/wire-shapes';
import type { CommandDeps } from '../deps';
import { replayLog } from '../simulate/replay';
import { decideRecompute } from './decider';

export interface RecomputeOptions {
  recomputeUid: string;
  /** Actions before this timestamp (Unix ms) stand as recorded. */
  from?: number;
  dryRun: boolean;
  top: number;
  metadata: EventMetadata;
  onProgress?(eventsDone: number, eventsTotal: number): void;
}

/** Players who acted during a run are replayed again, at most this many times. */
const MAX_PASSES = 20;

export async function recompute(
  deps: Pick<CommandDeps, 'events' | 'catalog' | 'now' | 'random' | 'newUid'>,
  options: RecomputeOptions,
): Promise<{ report: Simulation; applied: boolean }> {
  const { catalog, version } = deps.catalog();
  let report: Simulation | null = null;
  let players: ReadonlySet<string> | undefined;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const replay = await replayLog(deps.events, catalog, {
      players,
      from: options.from,
      onProgress: (_read, position, head) => options.onProgress?.(Math.min(position, head), head),
    });
    report ??= replay.report(options.top);
    if (options.dryRun) return { report, applied: false };
    const acted = new Set<string>();
    for (const player of replay.replayed().values()) {
      const decided = decideRecompute({ recomputeUid: options.recomputeUid, catalogVersion: version }, player, {
        now: deps.now(),
        random: deps.random,
        newUid: deps.newUid,
        catalog,
      });
      if (!decided.ok) throw new Error(decided.failure.message);
      const event = decided.value.answer;
      if (!event) continue;
      try {
        // At the revision the replay read: a player who acted since is replayed again.
        await deps.events.appendToStreams(
          decided.value.writes.map((w) => ({
            stream: w.stream,
            expectedRevision: event.readRevision,
            events: w.events.map((e) => ({ id: randomUUID(), ...e, metadata: options.metadata })),
          })),
        );
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        acted.add(event.playerId);
      }
    }
    if (!acted.size) return { report, applied: true };
    players = acted;
  }
  throw new Error(`players kept acting during the recompute; ${MAX_PASSES} passes were not enough`);
}
