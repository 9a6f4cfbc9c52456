/**
 * The event feed's records and filters: the same for the feed's pages, its live tail and the
 * CLI's `export`, so an analyst gets the same records whichever way they read the log.
 */
import type { EventStore, RecordedEvent } from '../../shared/adapters/event-store/port';
import { streamKindOf, type StreamKind } from '../../domain/streams';
import { auditEvent } from '../audit/events';

export type FeedRecord = ReturnType<typeof auditEvent>;
export const feedRecord = auditEvent;

/** Which events a reader wants: by event type, by stream kind; absent: all. */
export interface FeedFilter {
  types?: ReadonlySet<string>;
  streams?: ReadonlySet<StreamKind>;
}

export const matches = (event: RecordedEvent, filter: FeedFilter): boolean => {
  if (filter.types && !filter.types.has(event.type)) return false;
  const kind = streamKindOf(event.streamName);
  return !filter.streams || (kind !== null && filter.streams.has(kind));
};

const PAGE_SIZE = 1000;

/**
 * The records after a position that match, at most `limit`, reading at most `scanLimit` events:
 * a filter that matches little must not read the whole log in one request. `next` is where the
 * next page starts: the last event read.
 */
export async function feedPage(
  events: EventStore,
  after: number,
  filter: FeedFilter,
  limit: number,
  scanLimit: number,
): Promise<{ records: FeedRecord[]; next: number }> {
  const records: FeedRecord[] = [];
  let next = after;
  let scanned = 0;
  while (records.length < limit && scanned < scanLimit) {
    const page = await events.readAll({ fromPosition: next, maxCount: Math.min(PAGE_SIZE, scanLimit - scanned) });
    for (const event of page) {
      next = event.position;
      scanned++;
      if (matches(event, filter)) records.push(feedRecord(event));
      if (records.length === limit) break;
    }
    if (page.length === 0 || (page.length < PAGE_SIZE && records.length < limit)) break;
  }
  return { records, next };
}
