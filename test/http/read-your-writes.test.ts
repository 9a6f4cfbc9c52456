/**
 * The all-in-one process projects in a worker thread, and still answers a write only once its
 * events are projected: a read sent after the answer sees the write, without X-Min-Position.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { ProjectionThread } from '../../app/projection-thread';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import type { RecordedEvent } from '../../shared/adapters/event-store/port';
import { ForwardedReadStore } from '../../shared/adapters/read-store/forwarded';
import { server, startTestService, tempDir, type TestService } from '../support/service';

const catalogYaml = `
version: 1
actions:
  - { uid: act-score, identifier: score, points: 10 }
leaderboards:
  - { uid: lb-points, label: Points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml });
});
afterAll(() => t.close());

describe('the all-in-one process', () => {
  it('runs the projections in a worker thread and reads the read models from it', () => {
    expect(t.service.projections).toBeInstanceOf(ProjectionThread);
    const projections = t.service.projections as ProjectionThread;
    expect(projections.threadId).toBeGreaterThan(0);
    expect(projections.threadId).not.toBe(threadId);
    expect(t.service.readStore).toBeInstanceOf(ForwardedReadStore);
  });

  it('answers a read sent after a write with the write in it, 200 times over, for writes of different kinds', async () => {
    const players: { id: string; username: string; points: number; actions: string[] }[] = [];
    const found = async (username: string) =>
      (await t.http.get('/v1/admin/players').query({ username }).set(server)).body.data as { playerId: string }[];
    const standing = async (playerId: string) =>
      (await t.http.get('/v1/admin/leaderboards/lb-points').query({ top: '1', playerId }).set(server)).body.data[0]
        .player as { points: number } | null;

    for (let i = 0; i < 200; i++) {
      const kind = i % 3;
      if (kind === 0 || players.length === 0) {
        const player = { id: randomUUID(), username: `ryw${i}x${randomUUID().slice(0, 8)}`, points: 0, actions: [] };
        const created = await t.http
          .post('/v1/player/create')
          .set(server)
          .send({ playerId: player.id, username: player.username });
        expect(created.body.code).toBe(200);
        expect(await found(player.username)).toEqual([{ playerId: player.id, username: player.username }]);
        players.push(player);
      } else if (kind === 1) {
        const player = players[i % players.length];
        const processed = await t.http
          .post('/v1/action/process')
          .set(server)
          .send({ name: 'score', playerId: player.id, referenceId: `ref-${i}` });
        expect(processed.body.code).toBe(200);
        player.actions.push(`ref-${i}`);
        player.points += 10;
        expect((await standing(player.id))?.points).toBe(player.points);
      } else {
        // Reverses the player's latest action, when it has one left.
        const player = players[i % players.length];
        if (player.points === 0) continue;
        const reversed = await t.http
          .post('/v1/action/delete')
          .set(server)
          .send({ name: 'score', playerId: player.id, referenceId: player.actions.pop() });
        expect(reversed.body).toEqual({ code: 200 });
        player.points -= 10;
        // A player back at 0 points has no standing.
        expect((await standing(player.id))?.points ?? 0).toBe(player.points);
      }
    }
  });
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
      const append = (stream: string) =>
        writer.appendToStreams([
          {
            stream,
            expectedRevision: 'no_stream',
            events: [
              {
                id: randomUUID(),
                type: 'Noted',
                data: {},
                metadata: { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 },
              },
            ],
          },
        ]);
      const delivery = async (count: number) => {
        const deadline = Date.now() + 20_000;
        while (delivered.length < count && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
      };
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
