/**
 * Given/when/then for a use case's decider object: given the events of each stream, when a
 * command, then the events written per stream, or then a failure code. The state is what the
 * object's own `read` makes of the given streams, each folded by its stream's fold, as the handler
 * reads them through the command pipeline:
 *
 *   deciderSpec(updatePlayerDecider)
 *     .given({ [playerStream(PLAYER)]: [registered] })
 *     .when({ playerId: PLAYER, username: 'Grace' }, env)
 *     .thenFails(5003);
 *
 * Then-events is the usual assertion of a decider test: `thenWrites` states the events written on
 * every stream, type and data exactly (a stream not named must not be written; `{}`: nothing
 * written), and returns the decision for what events cannot say (the answer, the jobs, the
 * expected revisions); `thenFails` the refusal. The expected events are checked at run time, so a
 * test may build them with its own helpers (ExpectedEvent types them loosely). A spec that records
 * decisions as it goes (player-spec) has the same then through `p.deciding(...)` and `p.reversal(...)`.
 */
import type { DeepReadonly } from '../../domain/deep-readonly';
import type { DecideEnv, Decision } from '../../command-api/decision';
import type { RecordedEvent } from '../../shared/adapters/event-store/port';
import { playerEventOf } from '../../domain/events';
import { PlayerFolding, type PlayerState } from '../../domain/player/state';
import { PLAYER_FOLD } from '../../domain/player/fold';
import type { Failure, Result } from '../../domain/result';
import { foldStream } from '../../domain/stream-fold';
import { PROVISION_FOLD, type ProvisionRecord } from '../../domain/provisions';
import { STOCK_FOLD, type StockState } from '../../domain/stock/stock';
import { playerIdOfStream, playerStream } from '../../domain/streams';
import { answerReadsNow, type ReadRequest, type UseCase } from '../../command-api/use-case';

/** The events recorded on each stream before the command, by stream name. */
export type GivenStreams = Readonly<Record<string, readonly { type: string; data: unknown }[]>>;

/** The given events of one stream (from a revision on), as the store would hand them out. */
export function recordedOf(given: GivenStreams, stream: string, from = 0): RecordedEvent[] {
  return (given[stream] ?? []).slice(from).map((e, i) => ({
    id: `${stream}-${from + i}`,
    type: e.type,
    data: e.data,
    metadata: { correlationId: 'spec', causationId: 'spec', keyName: 'spec', catalogVersion: 1 },
    streamName: stream,
    revision: from + i,
    position: 0,
    createdAt: 0,
  }));
}

/** Folds already made, by the given stream's array: a stream that grew is folded on from where it was, as the state cache does. */
const folded = new WeakMap<object, { length: number; folding: PlayerFolding }>();

/**
 * The player's state folded from the given events of their stream. A spec that records on as it goes
 * (player-spec) hands the same array again: only its new events are folded, into the state handed
 * out before, as the state cache folds on (a spec of thousands of actions would copy the state for each).
 */
export function readPlayer(given: GivenStreams, playerId: string): PlayerState {
  const events = given[playerStream(playerId)] ?? [];
  const cached = folded.get(events);
  const from = cached && cached.length <= events.length ? cached : { length: 0, folding: new PlayerFolding(playerId) };
  for (const recorded of recordedOf(given, playerStream(playerId), from.length)) {
    const e = playerEventOf(recorded);
    if (e) from.folding.add(e);
  }
  folded.set(events, { length: events.length, folding: from.folding });
  return from.folding.state;
}

/** A limited stock folded from the given events of its stream (what a test checks of it). */
export const readStock = (given: GivenStreams, stream: string): StockState =>
  foldStream(stream, STOCK_FOLD, recordedOf(given, stream)).state;

/** A provision's record folded from the given events of its stream (null: none). */
export const readProvision = (given: GivenStreams, stream: string): ProvisionRecord | null =>
  foldStream(stream, PROVISION_FOLD, recordedOf(given, stream)).state;

/** One read of a use case, answered from the given streams (a player's through readPlayer, which folds on). */
export function answerFromGiven(given: GivenStreams, request: ReadRequest): unknown {
  const { stream } = request;
  if (request.kind === 'eventAt') return recordedOf(given, stream, request.revision)[0] ?? null;
  const playerId = playerIdOfStream(stream);
  if (request.fold === PLAYER_FOLD && playerId !== null)
    return { state: readPlayer(given, playerId), revision: (given[stream]?.length ?? 0) - 1 };
  return foldStream(stream, request.fold, recordedOf(given, stream));
}

/** The state a use case decides on, read from the given streams. */
export const stateOf = <Command, State>(
  useCase: Pick<UseCase<Command, State, unknown>, 'read'>,
  given: GivenStreams,
  command: Command,
  env: DecideEnv,
): DeepReadonly<State> => answerReadsNow(useCase.read(command, env), (request) => answerFromGiven(given, request));

/** An event as a test expects it written: its type and its data, both checked exactly at run time. */
export interface ExpectedEvent {
  type: string;
  data: unknown;
}

export interface Then<Answer> {
  /** What the decider decided. */
  readonly decided: Result<Decision<Answer>>;
  /**
   * The events written per stream, exactly (type and data; no other stream written); returns the
   * decision for further checks (its answer, jobs, expected revisions). The data is checked at run
   * time (toEqual), so an expectation may be built by a test's own helpers, typed loosely.
   */
  thenWrites(expected: Record<string, readonly ExpectedEvent[]>): Decision<Answer>;
  /** The failure's code (and its message, when given); returns the failure. */
  thenFails(code: number, message?: string): Failure;
}

/** A decider with the reads its handler makes, ready for given/when/then. */
export interface DeciderSpec<Command, Answer> {
  given(streams?: GivenStreams): { when(command: Command, env: DecideEnv): Then<Answer> };
}

/** A use case's decider object, ready for given/when/then: its own reads make the state. */
export function deciderSpec<Command, State, Answer>(
  useCase: UseCase<Command, State, Answer>,
): DeciderSpec<Command, Answer> {
  return {
    given(streams: GivenStreams = {}) {
      return {
        when(command: Command, env: DecideEnv): Then<Answer> {
          const decided = useCase.decide(command, stateOf(useCase, streams, command, env), env);
          return {
            decided,
            thenWrites(expected) {
              if (!decided.ok)
                throw new Error(`expected writes, got ${decided.failure.code} ${decided.failure.message}`);
              const writes = Object.fromEntries(
                decided.value.writes.map((w) => [w.stream, w.events.map(({ type, data }) => ({ type, data }))]),
              );
              expect(writes).toEqual(expected);
              return decided.value;
            },
            thenFails(code, message) {
              if (decided.ok) throw new Error(`expected failure ${code}, got writes`);
              expect(decided.failure.code).toBe(code);
              if (message !== undefined) expect(decided.failure.message).toBe(message);
              return decided.failure;
            },
          };
        },
      };
    },
  };
}
