/**
 * Given/when/then for the player deciders. A spec holds one player's recorded events and the state
 * folded from them; `process` and `reverse` run a decider on that state and, when it succeeds,
 * record what it decided, so the next step decides on the new state:
 *
 *   const p = playerSpec(catalogOf(YAML));                     // given an unknown player
 *   const first = p.process('purchase', { details: { amount: 10 } });  // when (and fed back)
 *   expect(first.result.badges).toEqual(...);                  // then
 *   expect(p.state.points).toBe(30);
 */
import { parseCatalog } from '../../shared/catalog/load';
import { seededRandom } from './seeded-random';
import type { Catalog } from '../../shared/catalog/schema';
import type { RecordedEvent } from '../../shared/event-store/port';
import type { ActionProcessed, ActionReversed } from '../../shared/events/player-events';
import type { Failure, Result } from '../../shared/http/envelope';
import type { DecisionEnv } from '../../command-api/player/grants';
import { evolve, initialPlayerState, type PlayerState } from '../../command-api/player/state';
import { decideProcessAction, type ProcessActionDecision } from '../../command-api/process-action/decider';
import { decideReverseAction } from '../../command-api/reverse-action/decider';

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

/** Folds events in the order given, as they would be recorded on the player's stream. */
export function given(events: readonly { type: string; data: unknown }[], playerId = PLAYER): { state: PlayerState; recorded: RecordedEvent[] } {
  const state = initialPlayerState(playerId);
  const recorded = events.map((e, revision) => recordedEvent(playerId, e, revision));
  for (const e of recorded) evolve(state, e);
  return { state, recorded };
}

function recordedEvent(playerId: string, e: { type: string; data: unknown }, revision: number): RecordedEvent {
  return {
    id: `event-${revision}`,
    type: e.type,
    data: e.data,
    metadata: { correlationId: 'spec', causationId: 'spec', keyName: 'spec', catalogVersion: 1 },
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
  /** Limited triggers with no activation left (ProcessActionEnv.exhaustedTriggers). */
  readonly exhaustedTriggers: Set<string>;
  readonly state: PlayerState;
  readonly recorded: RecordedEvent[];
  /** Appends events to the player's stream (folding them into the state). */
  given(...events: { type: string; data: unknown }[]): PlayerSpec;
  /** Processes an action that must succeed; its events are recorded. */
  process(name: string, options?: ActOptions): ActionProcessed;
  /** Processes an action; its events are recorded when it succeeds. */
  tryProcess(name: string, options?: ActOptions): Result<ProcessActionDecision>;
  /** Processes `count` actions of one name; returns the last. */
  repeat(count: number, name: string, options?: Omit<ActOptions, 'ref'>): ActionProcessed;
  /** Reverses a processed action that must be reversible; the ActionReversed is recorded. */
  reverse(ref: string, options?: { name?: string; playerId?: string }): ActionReversed;
  /** Reverses an action; the ActionReversed is recorded when it succeeds. */
  tryReverse(ref: string, options?: { name?: string; playerId?: string }): Result<ActionReversed>;
}

/**
 * A spec for one player and catalog. `env.now` is the clock: set it to move time (actions use it
 * as their timestamp unless `at` is given).
 */
export function playerSpec(catalog: Catalog, options: { now?: number; seed?: number; playerId?: string } = {}): PlayerSpec {
  const playerId = options.playerId ?? PLAYER;
  const env = testEnv(options.now, options.seed);
  const state = initialPlayerState(playerId);
  const recorded: RecordedEvent[] = [];
  const exhaustedTriggers = new Set<string>();
  let actions = 0;

  const record = (events: readonly { type: string; data: unknown }[]) => {
    for (const e of events) {
      const r = recordedEvent(playerId, e, recorded.length);
      recorded.push(r);
      evolve(state, r);
    }
  };

  const spec: PlayerSpec = {
    catalog,
    env,
    exhaustedTriggers,
    state,
    recorded,
    given(...events) {
      record(events);
      return spec;
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
      const decision = decideProcessAction(cmd, state, { ...env, catalog, exhaustedTriggers, costProvisionUid: env.newUid() });
      if (decision.ok) record(decision.value.events);
      return decision;
    },
    process(name, o) {
      return succeeded(spec.tryProcess(name, o)).processed;
    },
    repeat(count, name, o) {
      let last: ActionProcessed | undefined;
      for (let i = 0; i < count; i++) last = spec.process(name, o);
      return last!;
    },
    tryReverse(ref, o = {}) {
      const revision = state.processed.get(ref);
      const original = revision === undefined ? null : (recorded[revision].data as ActionProcessed);
      const decision = decideReverseAction({ playerId: o.playerId ?? playerId, referenceId: ref, name: o.name ?? original?.actionName ?? 'unknown' }, state, original, catalog, env.now);
      if (decision.ok) record([{ type: 'ActionReversed', data: decision.value }]);
      return decision;
    },
    reverse(ref, o) {
      return succeeded(spec.tryReverse(ref, o));
    },
  };
  return spec;
}

function succeeded<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.failure.code}: ${result.failure.message}`);
  return result.value;
}

/** The failure of a result that must have failed. */
export function failureOf(result: Result<unknown>): Failure {
  if (result.ok) throw new Error('expected a failure, got success');
  return result.failure;
}

/** The PowerupActivated event of an owned powerup, at a time in Unix ms. */
export const activated = (powerupUid: string, atMs: number, playerId = PLAYER) => ({
  type: 'PowerupActivated',
  data: { playerId, powerupUid, activatedAt: Math.floor(atMs / 1000), effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] } },
});
