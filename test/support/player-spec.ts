/**
 * Given/when/then for the player deciders. A spec holds one player's recorded events and the state
 * folded from them; `process` and `reverse` run a decider on that state and, when it succeeds,
 * record what it decided, so the next step decides on the new state:
 *
 *   const p = playerSpec(catalogOf(YAML));                     // given an unknown player
 *   const first = p.process('purchase', { details: { amount: 10 } });  // when (and fed back)
 *   expect(first.result.badges).toEqual(...);                  // then
 *   expect(p.state.points).toBe(30);
 *
 * `deciding` is `when` for then-events: the events it writes per stream stated exactly
 * (`thenWrites`) or its failure (`thenFails`); a decision that succeeds is recorded, so the next
 * step decides on the new state (`reversal` is `tryReverse` the same way):
 *
 *   p.deciding(adjusting, command).thenWrites({ [playerStream(PLAYER)]: [{ type, data }] });
 */
import type { DecideEnv, Decision } from '../../command-api/decision';
import { deciderSpec, readPlayer, recordedOf, type DeciderSpec, type GivenStreams, type Then } from './decider-spec';
import { processActionDecider } from '../../command-api/process-action/decider';
import { reverseActionDecider } from '../../command-api/reverse-action/decider';
import { parseCatalog } from '../../domain/catalog/load';
import type { Catalog } from '../../domain/catalog/schema';
import type { RecordedEvent } from '../../shared/adapters/event-store/port';
import { playerEventOf, referenceEventOf, type DomainEvent, type PlayerEvent } from '../../domain/events';
import type { ActionProcessed, ActionResult, ActionReversed } from '../../domain/events/player-events';
import { foldPlayer, type PlayerState } from '../../domain/player/state';
import type { Failure, Result } from '../../domain/result';
import type { DecisionEnv } from '../../domain/rules/decision-env';
import { playerStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { seededRandom } from '../../bench/seeded-random';

export const PLAYER = '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0001';
export const OTHER_PLAYER = '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0002';
/** 2026-06-01T00:00:00Z: the clock of every spec unless told otherwise. */
export const T0 = Date.UTC(2026, 5, 1);
export const SECOND = 1000;
export const DAY = 86_400_000;

/** A validated catalog from YAML parts (each may be indented as a whole); throws with every problem when it is invalid. */
export function catalogOf(...parts: string[]): Catalog {
  const parsed = parseCatalog(parts.map(dedent).join('\n'), 'spec.yaml');
  if (!parsed.ok) throw new Error(`invalid catalog:\n${parsed.problems.join('\n')}`);
  return parsed.catalog;
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

export { seededRandom };

/** A deterministic env: fixed clock, seeded randomness, uids counting up as 32 hex digits. */
export function testEnv(now = T0, seed = 42): DecisionEnv {
  let n = 0;
  return { now, random: seededRandom(seed), newUid: () => (++n).toString(16).padStart(32, '0') };
}

/** The events a decision writes to one stream (none when it does not write there). */
export function written(decision: Decision<unknown>, stream: string): DomainEvent[] {
  return decision.writes.find((w) => w.stream === stream)?.events ?? [];
}

/** The streams a decision writes, in its order. */
export const streamsOf = (decision: Decision<unknown>): string[] => decision.writes.map((w) => w.stream);

/** The player events of a decision (written to the player's stream). */
export function playerEvents(decision: Decision<unknown>, playerId = PLAYER): PlayerEvent[] {
  return written(decision, playerStream(playerId)).flatMap((e) => {
    const typed = playerEventOf({
      ...e,
      id: 'e',
      metadata: SPEC_METADATA,
      streamName: playerStream(playerId),
      revision: 0,
      position: 0,
      createdAt: 0,
    });
    return typed ? [typed] : [];
  });
}

const SPEC_METADATA = { correlationId: 'spec', causationId: 'spec', keyName: 'spec', catalogVersion: 1 };

/** Folds events in the order given, as they would be recorded on the player's stream. */
export function given(
  events: readonly PlayerEvent[],
  playerId = PLAYER,
): { state: PlayerState; recorded: RecordedEvent[] } {
  const recorded = events.map((e, revision) => recordedEvent(playerId, e, revision));
  return {
    state: foldPlayer(
      playerId,
      recorded.map((e) => playerEventOf(e)!),
    ),
    recorded,
  };
}

function recordedEvent(playerId: string, e: PlayerEvent, revision: number): RecordedEvent {
  return {
    id: `event-${revision}`,
    type: e.type,
    data: e.data,
    metadata: SPEC_METADATA,
    streamName: `player-${playerId}`,
    revision,
    position: revision + 1,
    createdAt: T0,
  };
}

export interface ActOptions {
  /** Default: `ref-<n>`, counting the actions of this spec. */
  ref?: string;
  /** Action timestamp (Unix ms); default the spec's clock. */
  at?: number;
  multiplier?: number;
  details?: Record<string, string | number>;
  playerId?: string;
}

export interface PlayerSpec {
  readonly catalog: Catalog;
  readonly env: DecisionEnv;
  /** Limited triggers with no activation left over all players (the others have all theirs). */
  readonly exhaustedTriggers: Set<string>;
  readonly state: PlayerState;
  readonly recorded: RecordedEvent[];
  /** What decisions wrote to streams other than the player's, by stream. */
  readonly streams: Map<string, DomainEvent[]>;
  /** Appends events to the player's stream (folding them into the state). */
  given(...events: PlayerEvent[]): PlayerSpec;
  /** Records what a decision writes: its player events on the player's stream, the rest in `streams`. */
  apply(decision: Decision<unknown>): void;
  /** Every stream the spec holds (the player's and the others decisions wrote), as a decider spec's given. */
  givenStreams(): GivenStreams;
  /** Decides with a decider spec on the spec's streams (its handler's reads); records the decision when it succeeds. */
  when<Command, Answer>(
    decider: DeciderSpec<Command, Answer>,
    command: Command,
    env?: DecideEnv,
  ): Result<Decision<Answer>>;
  /** As `when`, for then-events: `thenWrites` (the decision recorded) or `thenFails` on its decision. */
  deciding<Command, Answer>(decider: DeciderSpec<Command, Answer>, command: Command, env?: DecideEnv): Then<Answer>;
  /** Processes an action that must succeed; its events are recorded. */
  process(name: string, options?: ActOptions): ActionProcessed;
  /** Processes an action; its player events are recorded when it succeeds. */
  tryProcess(name: string, options?: ActOptions): Result<Decision<ActionResult>>;
  /** Processes `count` actions of one name; returns the last. */
  repeat(count: number, name: string, options?: Omit<ActOptions, 'ref'>): ActionProcessed;
  /** Reverses a processed action that must be reversible; the ActionReversed is recorded. */
  reverse(ref: string, options?: { name?: string; playerId?: string }): ActionReversed;
  /** Reverses an action; the ActionReversed is recorded when it succeeds. */
  tryReverse(ref: string, options?: { name?: string; playerId?: string }): Result<Decision<ActionReversed>>;
  /** As `tryReverse`, for then-events (`thenWrites`, `thenFails`). */
  reversal(ref: string, options?: { name?: string; playerId?: string }): Then<ActionReversed>;
}

/**
 * A spec for one player and catalog. `env.now` is the clock: set it to move time (actions use it
 * as their timestamp unless `at` is given).
 */
export function playerSpec(
  catalog: Catalog,
  options: { now?: number; seed?: number; playerId?: string } = {},
): PlayerSpec {
  const playerId = options.playerId ?? PLAYER;
  const env = testEnv(options.now, options.seed);
  const recorded: RecordedEvent[] = [];
  const streams = new Map<string, DomainEvent[]>();
  const exhaustedTriggers = new Set<string>();
  let actions = 0;

  const record = (events: readonly PlayerEvent[]) => {
    for (const e of events) recorded.push(recordedEvent(playerId, e, recorded.length));
  };
  /** The activations of an exhausted trigger, all taken by other players: what its stream holds before the spec's own. */
  const takenByOthers = (stream: string): DomainEvent[] => {
    const trigger = catalog.triggers.find(
      (t) => exhaustedTriggers.has(t.uid) && stockStream(TRIGGER_ACTIVATIONS, t.uid) === stream,
    );
    if (!trigger?.limited) return [];
    const data = { resourceUid: trigger.uid, holder: 'others', playerId: OTHER_PLAYER, units: trigger.limit };
    return [{ type: TRIGGER_ACTIVATIONS.taken, data }];
  };

  /** The spec's streams as a decider spec's given, live (a copy per decision would cost as much as the streams held). */
  const own = playerStream(playerId);
  const streamOf = (name: string | symbol) => {
    if (name === own) return recorded;
    const others = takenByOthers(String(name));
    return others.length ? [...others, ...(streams.get(String(name)) ?? [])] : streams.get(String(name));
  };
  const given: GivenStreams = new Proxy(
    {},
    {
      get: (_, name) => streamOf(name),
      has: (_, name) => streamOf(name) !== undefined,
      ownKeys: () => [own, ...[...streams.keys()].filter((name) => name !== own)],
      getOwnPropertyDescriptor: (_, name) => {
        const value = streamOf(name);
        return value && { value, enumerable: true, configurable: true };
      },
    },
  );

  const spec: PlayerSpec = {
    catalog,
    env,
    exhaustedTriggers,
    // Folded from the recorded events as a decision reads it.
    get state() {
      return readPlayer(given, playerId);
    },
    recorded,
    streams,
    given(...events) {
      record(events);
      return spec;
    },
    apply(decision) {
      for (const { stream, events } of decision.writes) {
        if (stream === playerStream(playerId)) record(playerEvents(decision, playerId));
        else streams.set(stream, [...(streams.get(stream) ?? []), ...events]);
      }
    },
    givenStreams: () => given,
    when(decider, command, decideEnv = { ...env, catalog }) {
      const { decided } = decider.given(spec.givenStreams()).when(command, decideEnv);
      if (decided.ok) spec.apply(decided.value);
      return decided;
    },
    deciding(decider, command, decideEnv = { ...env, catalog }) {
      const then = decider.given(spec.givenStreams()).when(command, decideEnv);
      if (then.decided.ok) spec.apply(then.decided.value);
      return then;
    },
    tryProcess(name, o = {}) {
      actions++;
      const cmd = {
        playerId: o.playerId ?? playerId,
        referenceId: o.ref ?? `ref-${actions}`,
        name,
        timestamp: o.at ?? env.now,
        multiplier: o.multiplier ?? 1,
        details: Object.entries(o.details ?? {}).map(([n, value]) => ({ name: n, value: String(value) })),
      };
      return spec.when(processing, cmd);
    },
    process(name, o) {
      const processed = playerEvents(succeeded(spec.tryProcess(name, o)), o?.playerId ?? playerId).find(
        (e) => e.type === 'ActionProcessed',
      );
      if (processed?.type !== 'ActionProcessed') throw new Error('a processed action records an ActionProcessed');
      return processed.data;
    },
    repeat(count, name, o) {
      let last: ActionProcessed | undefined;
      for (let i = 0; i < count; i++) last = spec.process(name, o);
      return last!;
    },
    reversal(ref, o = {}) {
      const original = originalOf(spec.givenStreams(), ref);
      return spec.deciding(reversing, {
        playerId: o.playerId ?? playerId,
        referenceId: ref,
        name: o.name ?? original?.actionName ?? 'unknown',
      });
    },
    tryReverse: (ref, o) => spec.reversal(ref, o).decided,
    reverse(ref, o) {
      return succeeded(spec.tryReverse(ref, o)).answer;
    },
  };
  return spec;
}

/** The ActionProcessed a referenceId's record points at (null: none): its name is the one a reversal names by default. */
function originalOf(given: GivenStreams, referenceId: string): ActionProcessed | null {
  const recorded = recordedOf(given, referenceStream(referenceId)).map(referenceEventOf);
  const at = recorded.find((e) => e?.type === 'ReferenceRecorded');
  if (at?.type !== 'ReferenceRecorded') return null;
  const e = recordedOf(given, playerStream(at.data.playerId), at.data.playerRevision).map(playerEventOf)[0];
  return e?.type === 'ActionProcessed' ? e.data : null;
}

/** An action and a reversal, each by its decider object. */
const processing = deciderSpec(processActionDecider);
const reversing = deciderSpec(reverseActionDecider);

export function succeeded<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.failure.code}: ${result.failure.message}`);
  return result.value;
}

/** The failure of a result that must have failed. */
export function failureOf(result: Result<unknown>): Failure {
  if (result.ok) throw new Error('expected a failure, got success');
  return result.failure;
}

/** The PowerupActivated event of an owned powerup, at a time in Unix ms. */
export const activated = (powerupUid: string, atMs: number, playerId = PLAYER): PlayerEvent => ({
  type: 'PowerupActivated',
  data: {
    playerId,
    powerupUid,
    activatedAt: Math.floor(atMs / 1000),
    effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
  },
});
