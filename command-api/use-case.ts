/**
 * A use case's decider object: which streams its command reads, each folded by its stream's own
 * fold, the state it makes of them, and the decision on that state. The command pipeline
 * (runUseCase), the tests' given/when/then (test/support/decider-spec.ts) and any other caller
 * answer the same reads, so none of them can read differently. No I/O here: `read` only names what
 * to read (a generator of requests); whoever runs it answers each request.
 */
import type { RecordedEvent } from '../domain/events/recorded';
import type { Folded, StreamFold } from '../domain/stream-fold';
import type { DeepReadonly } from '../domain/deep-readonly';
import type { DecideEnv, Decider } from './decision';

/** One read of a use case: a stream folded by its fold (the append then expects the revision folded), or one event of a stream. */
export type ReadRequest =
  { kind: 'fold'; stream: string; fold: StreamFold<unknown> } | { kind: 'eventAt'; stream: string; revision: number };

/** The reads of a command, one request at a time, ending in the state it is decided on. */
export type Reads<T> = Generator<ReadRequest, T, unknown>;

/** A stream's state by its fold (`yield* folded(...)` in a use case's `read`). */
export function* folded<S>(stream: string, fold: StreamFold<S>): Reads<Folded<S>> {
  return (yield { kind: 'fold', stream, fold: fold }) as Folded<S>;
}

/** The event at a revision of a stream (null: none there). */
export function* eventAt(stream: string, revision: number): Reads<RecordedEvent | null> {
  return (yield { kind: 'eventAt', stream, revision }) as RecordedEvent | null;
}

export interface UseCase<Command, State, Answer> {
  /** The streams the command reads, each with its fold, and the state made of them. */
  read(command: Command, env: DecideEnv): Reads<DeepReadonly<State>>;
  decide: Decider<Command, State, Answer>;
}

/** Runs reads, each request answered (asynchronously) by `answer`. */
export async function answerReads<T>(reads: Reads<T>, answer: (request: ReadRequest) => Promise<unknown>): Promise<T> {
  let next = reads.next();
  while (!next.done) next = reads.next(await answer(next.value));
  return next.value;
}

/** Runs reads whose answers are at hand (a test's given streams). */
export function answerReadsNow<T>(reads: Reads<T>, answer: (request: ReadRequest) => unknown): T {
  let next = reads.next();
  while (!next.done) next = reads.next(answer(next.value));
  return next.value;
}
