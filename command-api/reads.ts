/** The reads of a command's attempt, through the state caches of each kind of stream. */
import type { RecordedEvent, StreamAppend } from '../shared/adapters/event-store/port';
import type { CachedState } from '../shared/adapters/event-store/state-cache';
import type { DomainEvent } from '../shared/domain/events';
import type { PlayerState } from '../shared/domain/player/state';
import type { Failure } from '../shared/domain/result';
import type { StockState } from '../shared/domain/stock/stock';
import { playerStream, stockStream, type LimitedStock } from '../shared/domain/streams';
import type { CommandDeps } from './deps';

/**
 * The reads of one attempt: each read notes the revision of its stream, the revision the
 * append then expects, so that whatever changed a stream since it was read makes the append fail.
 */
export class StreamReads {
  readonly revisions = new Map<string, number>();
  /** Each stream's check of what a decision writes to it, against the state read (see StreamStates.check). */
  private readonly checks = new Map<string, (events: readonly DomainEvent[]) => Failure | null>();

  constructor(private readonly deps: CommandDeps) {}

  async player(playerId: string): Promise<CachedState<PlayerState>> {
    const loaded = await this.deps.players.load(playerId);
    this.note(playerStream(playerId), loaded.revision);
    const stream = playerStream(playerId);
    if (!this.checks.has(stream)) this.checks.set(stream, (events) => this.deps.players.check(loaded.state, events));
    return loaded;
  }

  async stock(kind: LimitedStock, resourceUid: string): Promise<StockState> {
    const loaded = await this.deps.stocks.load(kind, resourceUid);
    this.note(stockStream(kind, resourceUid), loaded.revision);
    return loaded.state;
  }

  /**
   * A stream taken not to exist, unread: the append expects it so (no_stream), and fails if it
   * does exist after all, which the next attempt then reads.
   */
  assumeNew(stream: string): void {
    this.note(stream, -1);
  }

  /** A whole (short) stream: a reference, a provision, the catalog. */
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
      this.deps.players.absorb(stream, recorded);
      this.deps.stocks.absorb(stream, recorded);
    }
  }

  private note(stream: string, revision: number): void {
    // Read twice in one attempt (a nested state and its player): the first read is what was decided on.
    if (!this.revisions.has(stream)) this.revisions.set(stream, revision);
  }
}
