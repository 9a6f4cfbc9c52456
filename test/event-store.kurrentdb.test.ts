import { randomUUID } from 'node:crypto';
import { KurrentDbEventStore } from '../shared/event-store/kurrentdb';
import { StoreUnavailableError } from '../shared/event-store/port';
import { eventStoreContract } from './contracts/event-store.contract';
import { freePort } from './support/process';

const EVENTSTORE_URL = process.env.EVENTSTORE_URL;

// The contract writes only to fresh streams named per run, so it can share a real server.
if (EVENTSTORE_URL) {
  eventStoreContract('KurrentDbEventStore', async () => new KurrentDbEventStore(EVENTSTORE_URL));
} else {
  // Without a server the suite is reported as skipped, with the reason in its name: never as passed.
  const skipped = describe.skip;
  skipped('KurrentDB contract (skipped: EVENTSTORE_URL is not set; no KurrentDB server on this machine)', () => {
    it('runs the EventStore contract against KurrentDB', () => undefined);
  });
}


describe('KurrentDbEventStore without a server', () => {
  it('rejects appends, reads and subscriptions with StoreUnavailableError, promptly', async () => {
    const store = new KurrentDbEventStore(`kurrentdb://127.0.0.1:${await freePort()}?tls=false&defaultDeadline=500`);
    const stream = `unreachable-${randomUUID()}`;
    const metadata = { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 };
    try {
      const startedAt = Date.now();
      await expect(
        store.appendToStream(stream, [{ id: randomUUID(), type: 'Happened', data: {}, metadata }], 'no_stream'),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.readStream(stream)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.readAll({ fromPosition: 42 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(5000);

      // A subscription keeps trying to reconnect instead of failing: it reports nothing and delivers nothing.
      const errors: Error[] = [];
      const subscription = store.subscribeToAll({ onEvent: () => undefined, onError: (error) => errors.push(error) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await subscription.close();
      expect(errors).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('throws StoreUnavailableError once closed', async () => {
    const store = new KurrentDbEventStore(`kurrentdb://127.0.0.1:${await freePort()}?tls=false`);
    await store.close();
    await store.close();
    await expect(store.readStream('s')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.subscribeToAll({ onEvent: () => undefined })).toThrow(StoreUnavailableError);
  });
});
