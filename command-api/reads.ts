/** The reads of a command's attempt, each stream folded by its fold, through the state caches where they hold it. */
import type { RecordedEvent, StreamAppend } from '../shared/adapters/event-store/port';
import type { DomainEvent } from '../domain/events';
import type { Failure } from '../domain/result';
import type { Folded, StreamFold } from '../domain/stream-fold';
import type { CommandDeps } from './deps';
import { answerReads, type ReadRequest, type Reads } from './use-case';

/**
 * The reads of one attempt: each read notes the revision of its stream, the revision the
 * append then expects, so that whatever changed a stream since it was read makes the append fail.
 */
export class StreamReads {
  readonly revisions = new Map<string, number>();
  /** Each stream's check of what a decision writes to it, against the state read (StreamFold.check). */
  private readonly checks = new Map<string, (events: readonly DomainEvent[]) => Failure | null>();

  constructor(private readonly deps: Pick<CommandDeps, 'events' | 'states'>) {}

  /** A stream's state by its fold; its check, if it has one, applies to what the decision writes to the stream. */
  async fold<S>(stream: string, fold: StreamFold<S>): Promise<Folded<S>> {
    const loaded = await this.deps.states.load(stream, fold);
    this.note(stream, loaded.revision);
    const { check } = fold;
    if (check && !this.checks.has(stream)) this.checks.set(stream, (events) => check(loaded.state, events));
    return loaded;
  }

  /** A use case's reads, answered from the streams. */
  run<T>(reads: Reads<T>): Promise<T> {
    return answerReads(reads, (request) => this.answer(request));
  }

  /** One read of a use case. */
  answer(request: ReadRequest): Promise<unknown> {
    return request.kind === 'fold'
      ? this.fold(request.stream, request.fold)
      : this.deps.states.eventAt(request.stream, request.revision);
  }

  /**
   * A stream as the caller has already folded it (a recompute's replay): the append expects the
   * revision it was folded up to, and the fold's check applies to what is written to it.
   */
  known<S>(stream: string, fold: StreamFold<S>, folded: Folded<S>): void {
    this.note(stream, folded.revision);
    const { check } = fold;
    if (check && !this.checks.has(stream)) this.checks.set(stream, (events) => check(folded.state, events));
  }

  /**
   * A stream taken not to exist, unread: the append expects it so (no_stream), and fails if it
   * does exist after all, which the next attempt then reads.
   */
  assumeNew(stream: string): void {
    this.note(stream, -1);
  }

  /** A whole (short) stream's events: an Idempotency-Key's, the catalog. */
  async stream(stream: string): Promise<RecordedEvent[]> {
    const events = await this.deps.events.readStream(stream);
    this.note(stream, events.length ? events[events.length - 1].revision : -1);
    return events;
  }

  /** What the stream's own checks say of events a decision writes to it: null when they may be stored. */
  check(stream: string, events: readonly DomainEvent[]): Failure | null {
    return this.checks.get(stream)?.(events) ?? null;
  }

  /** What was just appended goes into the state caches, so the next command need not read it back. */
  absorb(appends: readonly StreamAppend[], revisions: Record<string, number>): void {
    const now = Date.now();
    for (const { stream, events } of appends) {
      const first = revisions[stream] - events.length + 1;
      const recorded = events.map((e, i): RecordedEvent => ({
        ...e,
        streamName: stream,
        revision: first + i,
        position: 0,
        createdAt: now,
      }));
      this.deps.states.absorb(stream, recorded);
    }
  }

  private note(stream: string, revision: number): void {
    // Read twice in one attempt (a nested state and its player): the first read is what was decided on.
    if (!this.revisions.has(stream)) this.revisions.set(stream, revision);
  }
}
