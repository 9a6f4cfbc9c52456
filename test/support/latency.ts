import type { EventStore } from '../../shared/adapters/event-store/port';

/** A random pause of up to `maxMs`: sometimes only to the next turn of the event loop. */
const pause = (maxMs: number) =>
  new Promise<void>((resolve) =>
    Math.random() < 0.3 ? setImmediate(resolve) : setTimeout(resolve, Math.random() * maxMs),
  );

/**
 * Makes the embedded store answer like a store over a network: each read and append waits a
 * random moment first. better-sqlite3 answers synchronously, so without this concurrent requests
 * in one process hardly ever interleave between a decision's read and its append, and a race
 * test could not fail. Returns a function that restores the store.
 */
export function addLatency(events: EventStore, maxMs = 3): () => void {
  const spies = (['readStream', 'appendToStreams', 'streamRevision', 'readAll', 'headPosition'] as const).map(
    (name) => {
      const original = (events[name] as (...args: unknown[]) => Promise<unknown>).bind(events);
      return jest.spyOn(events, name).mockImplementation((async (...args: unknown[]) => {
        await pause(maxMs);
        return original(...args);
      }) as never);
    },
  );
  return () => spies.forEach((spy) => spy.mockRestore());
}
