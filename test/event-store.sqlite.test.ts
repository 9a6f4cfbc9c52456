import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventStore,
  NewEvent,
  StoreUnavailableError,
  WrongExpectedVersionError,
} from '../shared/event-store/port';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import { eventStoreContract } from './contracts/event-store.contract';

/** A fresh directory per store, so the -wal and -shm files go with it. */
function tempDbFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'event-store-'));
  return { file: join(dir, 'events.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function event(data: unknown = { n: 1 }): NewEvent {
  return {
    id: randomUUID(),
    type: 'Happened',
    data,
    metadata: { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 },
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for condition');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const contractFiles = new Map<EventStore, () => void>();
eventStoreContract(
  'SqliteEventStore (file)',
  async () => {
    const { file, remove } = tempDbFile();
    const store = new SqliteEventStore(file);
    contractFiles.set(store, remove);
    return store;
  },
  async (store) => {
    await store.close();
    contractFiles.get(store)?.();
  },
);

eventStoreContract('SqliteEventStore (:memory:)', async () => new SqliteEventStore(':memory:'));

describe('SqliteEventStore specifics', () => {
  let file: string;
  let remove: () => void;
  const opened: SqliteEventStore[] = [];
  const open = (options?: ConstructorParameters<typeof SqliteEventStore>[1]) => {
    const store = new SqliteEventStore(file, options);
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    ({ file, remove } = tempDbFile());
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    remove();
  });

  it('keeps appended events across closing and reopening the file', async () => {
    const first = open();
    const appended = [event({ a: 1 }), event({ b: 0.1 })];
    const result = await first.appendToStream('player-1', appended, 'no_stream');
    await first.close();

    const reopened = open();
    const stored = await reopened.readStream('player-1');
    expect(stored.map((e) => [e.id, e.data])).toEqual(appended.map((e) => [e.id, e.data]));
    expect(await reopened.headPosition()).toBe(result.position);
    expect((await reopened.appendToStream('player-1', [event()], 1)).position).toBeGreaterThan(result.position);
  });

  it('delivers to a subscription events appended by another instance on the same file', async () => {
    const writer = open();
    const reader = open({ pollIntervalMs: 50 });
    const seen: string[] = [];
    reader.subscribeToAll({ onEvent: (e) => void seen.push(e.streamName) });
    await writer.appendToStream('other-process', [event(), event()], 'no_stream');
    await waitFor(() => seen.length === 2, 1000);
    expect(seen).toEqual(['other-process', 'other-process']);
  });

  it('delivers its own appends at once, without waiting for a poll tick', async () => {
    const store = open({ pollIntervalMs: 60_000 });
    const seen: number[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.appendToStream('s', [event()], 'no_stream');
    await waitFor(() => seen.length === 1, 500);
  });

  it('catches up over several pages in order, each event once', async () => {
    const store = open();
    const total = 2500;
    for (let i = 0; i < total; i += 500) {
      await store.appendToStream('bulk', Array.from({ length: 500 }, (_, n) => event({ n: i + n })), 'any');
    }
    const seen: number[] = [];
    const subscription = store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await waitFor(() => seen.length >= total, 5000);
    await subscription.close();
    expect(seen).toEqual(Array.from({ length: total }, (_, n) => n));
  });

  it('stops its subscriptions when the store closes', async () => {
    const store = open();
    const writer = open();
    const seen: number[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await writer.appendToStream('s', [event()], 'no_stream');
    await waitFor(() => seen.length === 1, 1000);
    await store.close();
    await writer.appendToStream('s', [event()], 0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(seen).toEqual([0]);
  });

  it('rejects an event id already used in another stream, writing nothing', async () => {
    const store = open();
    const shared = event();
    await store.appendToStream('a', [shared], 'no_stream');
    const error = await store.appendToStream('b', [event(), shared], 'any').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WrongExpectedVersionError);
    expect((error as Error).message).toContain(shared.id);
    expect(await store.streamRevision('b')).toBe(-1);
  });

  it("rejects a partial duplicate with 'any' as a wrong expected version", async () => {
    const store = open();
    const stored = event();
    await store.appendToStream('s', [stored], 'no_stream');
    await expect(store.appendToStream('s', [stored, event()], 'any')).rejects.toMatchObject({
      name: 'WrongExpectedVersionError',
      actual: 0,
    });
    expect(await store.streamRevision('s')).toBe(0);
  });

  it('records createdAt from the injected clock', async () => {
    const store = open({ now: () => 1_700_000_000_123 });
    await store.appendToStream('s', [event(), event()], 'no_stream');
    expect((await store.readStream('s')).map((e) => e.createdAt)).toEqual([1_700_000_000_123, 1_700_000_000_123]);
  });

  // Tests run as root, for whom chmod 0444 does not stop writes, so the read-only case is
  // produced by opening the connection read-only, which SQLite enforces for any user.
  it('throws StoreUnavailableError when appending to a store it cannot write', async () => {
    const writer = open();
    await writer.appendToStream('s', [event()], 'no_stream');
    const readonly = open({ readonly: true });
    expect(await readonly.streamRevision('s')).toBe(0);
    await expect(readonly.appendToStream('s', [event()], 0)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await readonly.streamRevision('s')).toBe(0);
  });

  it('throws StoreUnavailableError when the file cannot be opened', () => {
    expect(() => new SqliteEventStore(join(file, 'missing-dir', 'events.db'))).toThrow(StoreUnavailableError);
  });

  it('throws StoreUnavailableError once closed', async () => {
    const store = open();
    await store.close();
    await expect(store.appendToStream('s', [event()], 'any')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.readAll()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.subscribeToAll({ onEvent: () => undefined })).toThrow(StoreUnavailableError);
  });
});
