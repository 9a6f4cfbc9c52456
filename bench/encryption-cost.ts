/**
 * What encrypting the personal fields adds to an action's CPU (bench figure 1 asks within 10 %):
 * the bench mix through the real decider, the player state evolved by each decision and the
 * events' JSON written and read back, with and without the event store's personal-data codec
 * (shared/adapters/event-store/personal-data.ts: AES-256-GCM of the username and the details'
 * values on append, decryption on read), in alternating rounds. The store under the codec keeps
 * the JSON in memory and the keys are cached, as in the service, so the difference is the codec's.
 *
 * `npx tsx bench/encryption-cost.ts [players] [actionsPerRound] [rounds]` (default 2,000, 2,000, 20);
 * on a loaded machine, the median of the rounds' ratios is the figure to read.
 */
import { randomBytes } from 'node:crypto';
import { loadCatalogFile } from '../domain/catalog/load';
import { playerEventOf } from '../domain/events';
import { evolveInPlace } from '../domain/player/state';
import { PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import type { EventStore, RecordedEvent, StreamAppend } from '../shared/adapters/event-store/port';
import type { PlayerKeys } from '../shared/adapters/player-keys/port';
import { playerStream } from '../domain/streams';
import { decideActions, newSide } from './decide-actions';
import { BENCH_CATALOG_FILE } from './workload';

const METADATA = { correlationId: '', causationId: '', keyName: '', catalogVersion: 1 };

/** The last append's events as JSON, read back parsed: the store's own cost without its disk. */
function jsonStore(): EventStore {
  let last: RecordedEvent[] = [];
  const unused = () => {
    throw new Error('not used by the bench');
  };
  return {
    async appendToStreams(appends: readonly StreamAppend[]) {
      last = appends.flatMap((a) =>
        a.events.map((e, i) => ({
          ...e,
          data: JSON.parse(JSON.stringify(e.data)) as unknown,
          streamName: a.stream,
          revision: i,
          position: 0,
          createdAt: 0,
        })),
      );
      return { revisions: {}, position: 0 };
    },
    async readStream() {
      return last;
    },
    streamRevision: unused,
    readAll: unused,
    headPosition: unused,
    subscribeToAll: unused,
    writeProblem: () => null,
    close: async () => undefined,
  };
}

/** Keys made once per player and held in memory, as the cache in front of the key store does. */
function memoryKeys(): PlayerKeys {
  const keys = new Map<string, Buffer>();
  return {
    async getOrCreate(player) {
      let key = keys.get(player);
      if (!key) keys.set(player, (key = randomBytes(32)));
      return key;
    },
    async get(player) {
      return keys.get(player) ?? null;
    },
    async delete(player) {
      keys.delete(player);
    },
    async close() {},
  };
}

async function main(): Promise<void> {
  const [players = 2000, perRound = 2000, rounds = 20] = process.argv.slice(2).map(Number);
  const loaded = await loadCatalogFile(BENCH_CATALOG_FILE);
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const catalog = loaded.catalog;
  const sides = [
    { name: 'with encryption', store: new PersonalDataCodec(jsonStore(), memoryKeys()) as EventStore },
    { name: 'without', store: jsonStore() },
  ].map((s) => ({ ...s, ...newSide(), cpuUs: 0, rounds: [] as number[], actions: 0 }));
  const clock = { ts: Date.UTC(2026, 10, 26, 12) };
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 ? [...sides].reverse() : sides) {
      const cpu0 = process.cpuUsage();
      const actions = await decideActions(s, {
        catalog,
        players,
        count: perRound,
        clock,
        write: async (player, entry, decision) => {
          const stream = playerStream(player);
          await s.store.appendToStreams(
            decision.writes.map((w) => ({
              stream: w.stream,
              events: w.events.map((e) => ({ id: '', type: e.type, data: e.data, metadata: METADATA })),
              expectedRevision: 'any' as const,
            })),
          );
          for (const recorded of await s.store.readStream(stream)) {
            if (recorded.streamName !== stream) continue;
            const event = playerEventOf({ ...recorded, revision: ++entry.revision });
            if (event) evolveInPlace(entry.state, event);
          }
        },
      });
      const cpu = process.cpuUsage(cpu0);
      // The first round warms up.
      if (round === 0) continue;
      s.cpuUs += cpu.user + cpu.system;
      s.rounds.push((cpu.user + cpu.system) / actions);
      s.actions += actions;
    }
  }
  const perAction = sides.map((s) => s.cpuUs / s.actions);
  for (const [i, s] of sides.entries()) console.log(`${s.name}: ${perAction[i].toFixed(1)} us/action`);
  const ratios = sides[0].rounds.map((us, i) => us / sides[1].rounds[i]).sort((a, b) => a - b);
  console.log(
    `ratio ${(perAction[0] / perAction[1]).toFixed(3)} overall, median of the rounds ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}`,
  );
}

void main();
