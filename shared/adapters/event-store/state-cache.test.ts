import type { EventStore, ReadStreamOptions, RecordedEvent } from './port';
import { StreamStateCache } from './state-cache';

/** Streams of numbered events, and every read asked of them. */
function storeOf(streams: Record<string, number>) {
  const reads: { stream: string; fromRevision: number }[] = [];
  const events = {
    async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      const fromRevision = options.fromRevision ?? 0;
      reads.push({ stream, fromRevision });
      const out: RecordedEvent[] = [];
      for (let revision = fromRevision; revision < (streams[stream] ?? 0); revision++)
        out.push({
          id: `${stream}-${revision}`,
          type: 'Counted',
          data: null,
          metadata: {},
          streamName: stream,
          revision,
          position: revision,
          createdAt: 0,
        } as RecordedEvent);
      return out;
    },
  } as unknown as EventStore;
  return { events, reads };
}

const counting = { initial: () => ({ count: 0 }), evolve: (state: { count: number }) => ({ count: state.count + 1 }) };

describe('StreamStateCache', () => {
  it('keeps at most maxCached states: the least recently used one is folded again from the start of its stream', async () => {
    const { events, reads } = storeOf({ a: 3, b: 2, c: 1 });
    const cache = new StreamStateCache(events, counting, 2);
    await cache.load('a');
    await cache.load('b');
    await cache.load('a'); // b is now the least recently used
    await cache.load('c'); // and goes
    reads.length = 0;
    expect((await cache.load('a')).state.count).toBe(3);
    expect((await cache.load('c')).state.count).toBe(1);
    expect((await cache.load('b')).state.count).toBe(2);
    expect(reads).toEqual([
      { stream: 'a', fromRevision: 3 },
      { stream: 'c', fromRevision: 1 },
      { stream: 'b', fromRevision: 0 },
    ]);
  });
});
