/**
 * What a player's first action costs in CPU with the personal-data codec over the embedded key
 * store, against the same appends without the codec: the key made (SqlitePlayerKeys, one group
 * commit per event-loop turn, synced) before the event encrypted under it is appended to the
 * SQLite event store (durable commits, as in the service). Every append is a new player's first
 * action with one detail, `concurrency` of them in flight, so key creation is on every action;
 * bench figure 1 with its 5,000-player pool has it on roughly half of them. Rounds alternate.
 *
 * `npx tsx bench/key-creation-cost.ts [actionsPerRound] [rounds] [concurrency]` (default 3,000, 6, 50)
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import type { EventStore } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { CachedPlayerKeys } from '../shared/adapters/player-keys/cached';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';

const METADATA = { correlationId: '', causationId: '', keyName: '', catalogVersion: 1 };

/** CPU microseconds (user + system) per action of one round, on fresh files. */
async function round(encrypted: boolean, actions: number, concurrency: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-creation-'));
  const store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  const events: EventStore = encrypted
    ? new PersonalDataCodec(store, new CachedPlayerKeys(new SqlitePlayerKeys(path.join(dir, 'player-keys.sqlite'))))
    : store;
  let started = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started++ < actions) {
        const playerId = randomUUID();
        const data = { playerId, referenceId: randomUUID(), details: [{ name: 'score', value: String(started) }] };
        await events.appendToStreams([
          {
            stream: `player-${playerId}`,
            expectedRevision: 'no_stream',
            events: [{ id: randomUUID(), type: 'ActionProcessed', data, metadata: METADATA }],
          },
        ]);
      }
    }),
  );
  const used = process.cpuUsage(before);
  await events.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return (used.user + used.system) / actions;
}

async function main(): Promise<void> {
  const [actions = 3000, rounds = 6, concurrency = 50] = process.argv.slice(2).map(Number);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const encrypted: number[] = [];
  const without: number[] = [];
  await round(false, actions, concurrency); // warm-up
  for (let r = 0; r < rounds; r++) {
    encrypted.push(await round(true, actions, concurrency));
    without.push(await round(false, actions, concurrency));
  }
  const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
  console.log(`first actions, CPU us per action; with the codec: ${show(encrypted)}; without: ${show(without)}`);
  console.log(
    `medians: ${median(encrypted).toFixed(0)} us with, ${median(without).toFixed(0)} us without: the key and the encryption add ${(median(encrypted) - median(without)).toFixed(0)} us to a first action`,
  );
}

void main();
