/**
 * What streaks and caps add to an action's CPU outside HTTP and the event store: the bench mix
 * through the real decider, the player state evolved by each decision, the events' JSON written
 * and read back and the answer's JSON, against `bench/catalog.yaml` and the same catalog without
 * its streaks and caps (as BENCH_COMPARE_PLAIN makes it), in alternating rounds.
 *
 * `npx tsx bench/streaks-caps-cost.ts [players] [actionsPerRound] [rounds]` (default 5,000, 5,000, 40);
 * on a loaded machine, the median of the rounds' ratios is the figure to read;
 * MODE=decide times the decider alone; PROFILE=1 prints a CPU profile of the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadCatalogFile } from '../domain/catalog/load';
import type { Catalog } from '../domain/catalog/schema';
import { playerEventOf } from '../domain/events';
import { evolveInPlace } from '../domain/player/state';
import { playerStream } from '../domain/streams';
import { formatSummary, projectInclusive, startCpuProfile, summarizeProfile } from './profile';
import { decideActions, newSide } from './decide-actions';
import { BENCH_CATALOG_FILE } from './workload';

async function load(file: string): Promise<Catalog> {
  const loaded = await loadCatalogFile(file);
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  return loaded.catalog;
}

async function main(): Promise<void> {
  const [players = 5000, perRound = 5000, rounds = 40] = process.argv.slice(2).map(Number);
  const decideOnly = process.env.MODE === 'decide';
  const plain = YAML.parse(fs.readFileSync(BENCH_CATALOG_FILE, 'utf8')) as Record<string, unknown> & {
    actions?: Record<string, unknown>[];
    deliverables?: Record<string, unknown>[];
  };
  delete plain.streaks;
  for (const a of plain.actions ?? []) delete a.caps;
  for (const d of plain.deliverables ?? []) delete d.earnCaps;
  const plainFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'streaks-caps-')), 'catalog-plain.yaml');
  fs.writeFileSync(plainFile, YAML.stringify(plain));
  const sides = [
    { name: 'with streaks and caps', catalog: await load(BENCH_CATALOG_FILE) },
    { name: 'without', catalog: await load(plainFile) },
  ].map((s) => ({ ...s, ...newSide(), cpuUs: 0, rounds: [] as number[], actions: 0, bytes: 0 }));
  const stop = process.env.PROFILE ? await startCpuProfile(100) : null;
  const clock = { ts: Date.UTC(2026, 10, 26, 12) };
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 ? [...sides].reverse() : sides) {
      const cpu0 = process.cpuUsage();
      let bytes = 0;
      const actions = await decideActions(s, {
        catalog: s.catalog,
        players,
        count: perRound,
        clock,
        write: decideOnly
          ? undefined
          : (player, entry, decision, ts) => {
              const stream = playerStream(player);
              for (const write of decision.writes)
                for (const e of write.events) {
                  const json = JSON.stringify(e.data);
                  bytes += json.length;
                  if (write.stream !== stream) continue;
                  const recorded = { id: '', type: e.type, data: JSON.parse(json) as unknown, streamName: stream };
                  const event = playerEventOf({
                    ...recorded,
                    metadata: { correlationId: '', causationId: '', keyName: '', catalogVersion: 1 },
                    revision: ++entry.revision,
                    position: 0,
                    createdAt: ts,
                  });
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
      s.bytes += bytes;
    }
  }
  if (stop) {
    const profile = await stop(path.join(os.tmpdir(), 'streaks-caps-cost.cpuprofile'));
    console.log(formatSummary(summarizeProfile(profile, 30), projectInclusive(profile, 30)));
  }
  const perAction = sides.map((s) => s.cpuUs / s.actions);
  for (const [i, s] of sides.entries())
    console.log(
      `${s.name}: ${perAction[i].toFixed(1)} us/action${decideOnly ? ' (decider alone)' : `, ${(s.bytes / s.actions).toFixed(0)} B of events`}`,
    );
  const ratios = sides[0].rounds.map((us, i) => us / sides[1].rounds[i]).sort((a, b) => a - b);
  console.log(
    `ratio ${(perAction[0] / perAction[1]).toFixed(3)} overall, median of the rounds ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}`,
  );
}

void main();
