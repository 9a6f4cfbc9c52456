/**
 * How a kind of stream folds into the state a decision reads: where it starts, and the state after
 * each event (a new state: the one given is left as it was). Each kind of stream has one, named
 * beside its state (PLAYER_FOLD, STOCK_FOLD, PROVISION_FOLD, REFERENCE_FOLD, RECOMPUTES_FOLD);
 * the command pipeline, the state caches and the tests' given/when/then all fold with it.
 */
import type { DomainEvent } from './events';
import type { RecordedEvent } from './events/recorded';
import type { Failure } from './result';

export interface StreamFold<S> {
  /** The state of the stream before its first event. */
  initial(stream: string): S;
  evolve(state: S, event: RecordedEvent): S;
  /** The stream's own check of what a decision writes to it, against the state it was decided on: null when it may be stored. */
  check?(state: S, events: readonly DomainEvent[]): Failure | null;
}

/** A stream's state, and the revision it is folded up to (-1: the stream has no events). */
export interface Folded<S> {
  state: S;
  revision: number;
}

/** The state folded from a whole stream's events. */
export function foldStream<S>(stream: string, fold: StreamFold<S>, events: readonly RecordedEvent[]): Folded<S> {
  let state = fold.initial(stream);
  for (const e of events) state = fold.evolve(state, e);
  return { state, revision: events.length ? events[events.length - 1].revision : -1 };
}
