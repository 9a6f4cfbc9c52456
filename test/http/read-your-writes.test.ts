/**
 * The all-in-one process projects in a worker thread, and still answers a write only once its
 * events are projected: a read sent after the answer sees the write, without X-Min-Position.
 */
import { randomUUID } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { ProjectionThread } from '../../app/projection-thread';
import { ForwardedReadStore } from '../../shared/adapters/read-store/forwarded';
import { server, startTestService, type TestService } from '../support/service';

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
