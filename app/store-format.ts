import { WrongExpectedVersionError, type EventStore } from '../shared/adapters/event-store/port';
import { newEventId } from '../domain/ids';
import { operatorEventOf } from '../domain/events';
import { STORE_FORMAT_STREAM } from '../domain/streams';
import { ConfigurationError } from './configuration-error';

/**
 * The format of the stored events that this version reads and writes. Format 3: the players'
 * personal fields are encrypted under their keys (shared/adapters/event-store/personal-data.ts).
 * Format 2 (each command one atomic append) wrote them in plain text; format 1, the earlier
 * design, declared no format. Neither is read. How formats evolve: docs/architecture.md,
 * "Stored data and its format".
 */
export const STORE_FORMAT = 3;

const START_EMPTY = 'start on an empty data directory (DATA_DIR) or a new KurrentDB database';

/**
 * Checks the store's declared format before the service reads anything from it, and declares it
 * on an empty store (`declare`: a process that writes). Refuses, with one line saying what to do,
 * a store of another format.
 */
export async function checkStoreFormat(events: EventStore, declare: boolean): Promise<void> {
  // The head first: events another process writes after it are seen with its declaration, read next.
  const head = await events.headPosition();
  const declared = await declaredFormat(events);
  if (declared === STORE_FORMAT) return;
  if (declared !== null) {
    throw new ConfigurationError([
      `event store: holds stored format ${declared}, and this version of the service reads format ${STORE_FORMAT} only; ${declared > STORE_FORMAT ? 'run the newer version that wrote it' : START_EMPTY}`,
    ]);
  }
  if (head > 0) {
    throw new ConfigurationError([
      `event store: holds events of an earlier stored format (before format ${STORE_FORMAT}), which this version cannot read; ${START_EMPTY}`,
    ]);
  }
  if (!declare) return;
  try {
    await events.appendToStreams([
      {
        stream: STORE_FORMAT_STREAM,
        events: [
          {
            id: newEventId(),
            type: 'StoreFormatDeclared',
            data: { version: STORE_FORMAT },
            metadata: { correlationId: 'startup', causationId: 'startup', keyName: 'operator', catalogVersion: 0 },
          },
        ],
        expectedRevision: 'no_stream',
      },
    ]);
  } catch (error) {
    // Another process declared it first: check what it declared.
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    await checkStoreFormat(events, false);
  }
}

async function declaredFormat(events: EventStore): Promise<number | null> {
  const [first] = await events.readStream(STORE_FORMAT_STREAM, { maxCount: 1 });
  const e = first && operatorEventOf(first);
  return e?.type === 'StoreFormatDeclared' ? e.data.version : null;
}
