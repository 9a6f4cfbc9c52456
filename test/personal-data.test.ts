import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decrypt, encrypt, ERASED, PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import type { NewEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { eventually } from './support/process';

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const event = (type: string, data: unknown): NewEvent => ({ id: randomUUID(), type, data, metadata });

/** Every byte of every file under `dir`. */
function bytesUnder(dir: string): Buffer {
  return Buffer.concat(fs.readdirSync(dir).map((name) => fs.readFileSync(path.join(dir, name))));
}

describe('personal fields at the event store boundary', () => {
  it('writes them encrypted, reads them plain, and reads them [erased] once the key is deleted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'personal-data-'));
    const keys = new SqlitePlayerKeys(path.join(dir, 'player-keys.sqlite'));
    const events = new PersonalDataCodec(new SqliteEventStore(path.join(dir, 'events.sqlite')), keys);
    const username = `ada-${randomUUID()}`;
    const detail = `secret-${randomUUID()}`;
    await events.appendToStreams([
      {
        stream: 'player-p1',
        events: [
          event('PlayerRegistered', { playerId: 'p1', username, imageName: 'ada.png', registeredAt: 1 }),
          event('ActionProcessed', { playerId: 'p1', referenceId: 'r1', details: [{ name: 'city', value: detail }] }),
        ],
        expectedRevision: 'no_stream',
      },
      {
        stream: 'idempotency-test-k1',
        events: [event('IdempotentRequestRecorded', { outcome: { ok: true, answer: { playerId: 'p1', username } } })],
        expectedRevision: 'no_stream',
      },
    ]);
    const plain = await events.readAll();
    expect(plain.map((e) => e.data)).toEqual([
      { playerId: 'p1', username, imageName: 'ada.png', registeredAt: 1 },
      { playerId: 'p1', referenceId: 'r1', details: [{ name: 'city', value: detail }] },
      { outcome: { ok: true, answer: { playerId: 'p1', username } } },
    ]);
    const onDisk = bytesUnder(dir);
    expect(onDisk.includes(username)).toBe(false);
    expect(onDisk.includes(detail)).toBe(false);

    await keys.delete('p1');
    const erased = await events.readStream('player-p1');
    expect(erased.map((e) => e.data)).toEqual([
      { playerId: 'p1', username: ERASED, imageName: ERASED, registeredAt: 1 },
      { playerId: 'p1', referenceId: 'r1', details: [{ name: 'city', value: ERASED }] },
    ]);
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a value as [erased] under a key it was not written under (a key made again after an erasure), and a plain value as it is', () => {
    const written = encrypt('Grace', randomBytes(32), 'p3');
    expect(written.startsWith('pd1:')).toBe(true);
    expect(decrypt(written, randomBytes(32), 'p3')).toBe(ERASED);
    expect(decrypt('Grace', null, 'p3')).toBe('Grace');
  });

  it('completes an erasure whose key was not deleted when it reads the PlayerErased (a crash in between)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'personal-data-'));
    const keys = new SqlitePlayerKeys(path.join(dir, 'player-keys.sqlite'));
    const store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    const events = new PersonalDataCodec(store, keys);
    await events.appendToStreams([
      {
        stream: 'player-p2',
        events: [
          event('PlayerRegistered', { playerId: 'p2', username: 'Grace', imageName: null, registeredAt: 1 }),
          event('PlayerErased', { playerId: 'p2', erasedAt: 2 }),
        ],
        expectedRevision: 'no_stream',
      },
    ]);
    expect(await keys.get('p2')).not.toBeNull();
    // A process started afterwards reads the log from the start, as the projections do.
    const restarted = new PersonalDataCodec(store, keys);
    await restarted.readAll();
    expect(await keys.get('p2')).toBeNull();
    expect((await restarted.readStream('player-p2'))[0].data).toMatchObject({ username: ERASED });
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('asks for no key for an action without details, and leaves details sealed for a subscriber that reads none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'personal-data-'));
    const keys = new SqlitePlayerKeys(path.join(dir, 'player-keys.sqlite'));
    const events = new PersonalDataCodec(new SqliteEventStore(path.join(dir, 'events.sqlite')), keys);
    const asked = jest.spyOn(keys, 'getOrCreate');
    await events.appendToStreams([
      {
        stream: 'player-p4',
        events: [event('ActionProcessed', { playerId: 'p4', referenceId: 'r0', details: [] })],
        expectedRevision: 'no_stream',
      },
    ]);
    expect(asked).not.toHaveBeenCalled();
    await events.appendToStreams([
      {
        stream: 'player-p4',
        events: [
          event('PlayerRegistered', { playerId: 'p4', username: 'Ada', imageName: null, registeredAt: 1 }),
          event('ActionProcessed', { playerId: 'p4', referenceId: 'r1', details: [{ name: 'city', value: 'Paris' }] }),
        ],
        expectedRevision: 0,
      },
    ]);
    expect(asked).toHaveBeenCalledTimes(2);
    const delivered = async (sealedDetails: boolean) => {
      const seen: unknown[] = [];
      const subscription = events.subscribeToAll({ sealedDetails, onEvent: (e) => void seen.push(e.data) });
      await eventually(() => seen.length >= 3, 10_000, 10);
      await subscription.close();
      return seen as { username?: string; details?: { value: string }[] }[];
    };
    const sealed = await delivered(true);
    expect(sealed[1].username).toBe('Ada');
    expect(sealed[2].details![0].value).toMatch(/^pd1:/);
    const readable = await delivered(false);
    expect(readable[2].details).toEqual([{ name: 'city', value: 'Paris' }]);
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
