import type { EventStore, ExpectedRevision, NewEvent } from '../../shared/adapters/event-store/port';

/** A one-stream append, as most store tests make: the stream's new revision and the position. */
export async function appendOne(
  store: EventStore,
  stream: string,
  events: NewEvent[],
  expectedRevision: ExpectedRevision,
): Promise<{ nextExpectedRevision: number; position: number }> {
  const result = await store.appendToStreams([{ stream, events, expectedRevision }]);
  return { nextExpectedRevision: result.revisions[stream], position: result.position };
}
