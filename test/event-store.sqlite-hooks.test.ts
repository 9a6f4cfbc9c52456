/** The SqliteEventStore's hooks for a second connection in the process (the projections' worker thread). */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StoreFaultError, type RecordedEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { appendOne } from './support/append-one';
import { tempDir } from './support/service';
import { eventually } from './support/process';

const noted = () => ({
  id: randomUUID(),
  type: 'Noted',
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 },
});

describe('SqliteEventStore.appendedElsewhere', () => {
  it('has an idle subscription read what another connection appended, without waiting for its poll', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'events.sqlite');
    const writer = new SqliteEventStore(file);
    // The reader would look for new events only after a minute by itself.
    const reader = new SqliteEventStore(file, { readonly: true, pollIntervalMs: 60_000 });
    const delivered: RecordedEvent[] = [];
    const subscription = reader.subscribeToAll({ onEvent: (event) => void delivered.push(event) });
    try {
      const append = (stream: string) => appendOne(writer, stream, [noted()], 'no_stream');
      const delivery = (count: number) => eventually(() => delivered.length >= count, 20_000, 10);
      await append('s-1');
      reader.appendedElsewhere();
      await delivery(1);
      // Delivered the first event, the subscription is idle until its poll; the second is read when told of it.
      await append('s-2');
      reader.appendedElsewhere();
      await delivery(2);
      expect(delivered.map((e) => e.streamName)).toEqual(['s-1', 's-2']);
    } finally {
      await subscription.close();
      await reader.close();
      await writer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore.faultFoundElsewhere', () => {
  it('refuses writes from then on, with the reason as a lasting problem, as if this connection had found it', async () => {
    const dir = tempDir();
    const store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    try {
      store.faultFoundElsewhere('event store damaged: found by the projections');
      expect(store.writeProblem()).toEqual({ reason: 'event store damaged: found by the projections', lasting: true });
      await expect(appendOne(store, 's-1', [noted()], 'no_stream')).rejects.toBeInstanceOf(StoreFaultError);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
