/**
 * A kill -9 of the service in the middle of a recompute: every player is either recomputed (one
 * PlayerRecomputed with the whole change) or not at all, and running the recompute again after a
 * restart completes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { PlayerRecomputed } from '../domain/events/player-events';
import { DEMO_CATALOG_FILE } from '../shared/adapters/config/env';
import { KEYS, tempDir, writeKeysFile } from './support/service';
import { eventually, startServerProcess, stopProcess } from './support/process';

jest.setTimeout(300_000);

const PLAYERS = 600;
const DEMO = fs.readFileSync(DEMO_CATALOG_FILE, 'utf8');
const DOUBLED = DEMO.replace('identifier: purchase\n    points: 10\n', 'identifier: purchase\n    points: 20\n');

/** Each player's PlayerRecomputed events, as the store holds them. */
async function recomputedByPlayer(dataDir: string): Promise<Map<string, PlayerRecomputed[]>> {
  const events = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    const found = new Map<string, PlayerRecomputed[]>();
    for (const e of await events.readAll())
      if (e.type === 'PlayerRecomputed') {
        const data = e.data as PlayerRecomputed;
        found.set(data.playerId, [...(found.get(data.playerId) ?? []), data]);
      }
    return found;
  } finally {
    await events.close();
  }
}

it('a kill -9 mid-recompute leaves each player recomputed or not; running it again completes it', async () => {
  expect(DOUBLED).not.toBe(DEMO);
  const dataDir = tempDir();
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, DEMO);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile };
  let service = await startServerProcess(env);
  const call = (method: string, route: string, body?: object) =>
    fetch(`${service.url}${route}`, {
      method,
      headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ code: number; data: Record<string, unknown> }>);
  try {
    const players = Array.from({ length: PLAYERS }, () => randomUUID());
    for (let i = 0; i < PLAYERS; i += 20)
      for (const answer of await Promise.all(
        players
          .slice(i, i + 20)
          .map((playerId) =>
            call('POST', '/v1/action/process', { name: 'purchase', referenceId: randomUUID(), playerId }),
          ),
      ))
        expect(answer.code).toBe(200);
    const before = (await call('POST', '/v1/player/profile', { playerId: players[0] })).data.points as number;
    await stopProcess(service.child, 'SIGTERM');

    fs.writeFileSync(catalogFile, DOUBLED);
    service = await startServerProcess(env);
    const started = await call('POST', '/v1/admin/recompute', {});
    expect(started).toMatchObject({ code: 200, data: { status: 'Running' } });
    // Killed once the first players are recomputed (or, on a fast run, after the last).
    await eventually(async () => expect((await recomputedByPlayer(dataDir)).size).toBeGreaterThan(0), 120_000, 20);
    await stopProcess(service.child, 'SIGKILL');

    const cut = await recomputedByPlayer(dataDir);
    for (const [, events] of cut) {
      expect(events).toHaveLength(1);
      expect(events[0].changes.pointsAfter - events[0].changes.pointsBefore).toBe(10);
    }

    service = await startServerProcess(env);
    const interrupted = await call('GET', `/v1/admin/recompute/${started.data.recomputeUid as string}`);
    // Cut short, it says so (a fast run may have completed before the kill).
    if (cut.size < PLAYERS)
      expect(interrupted.data).toMatchObject({ status: 'Failed', message: expect.stringContaining('Interrupted') });
    const again = await call('POST', '/v1/admin/recompute', {});
    expect(again.code).toBe(200);
    const done = await eventually(
      async () => {
        const status = await call('GET', `/v1/admin/recompute/${again.data.recomputeUid as string}`);
        expect(status.data.status).toBe('Completed');
        return status.data;
      },
      120_000,
      100,
    );
    expect((done.report as { playersAffected: number }).playersAffected).toBe(PLAYERS - cut.size);
    const after = await recomputedByPlayer(dataDir);
    expect(after.size).toBe(PLAYERS);
    for (const [, events] of after) expect(events).toHaveLength(1);
    for (const playerId of [players[0], players[PLAYERS - 1]])
      expect((await call('POST', '/v1/player/profile', { playerId })).data.points).toBe(before + 10);
  } finally {
    await stopProcess(service.child, 'SIGKILL');
  }
});
