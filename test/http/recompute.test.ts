import { randomUUID } from 'node:crypto';
import { auditor, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-train, identifier: train, points: 3 }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;
const DOUBLED = CATALOG.replace('identifier: earn, points: 10', 'identifier: earn, points: 20');

let t: TestService;
const earner = randomUUID();
const trainer = randomUUID();
const earned = randomUUID();

beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
  for (const [playerId, name, referenceId] of [
    [earner, 'earn', earned],
    [earner, 'earn', randomUUID()],
    [trainer, 'train', randomUUID()],
  ])
    expect((await t.http.post('/v1/action/process').set(server).send({ playerId, name, referenceId })).body.code).toBe(
      200,
    );
});
afterAll(() => t.close());

const start = (body: object = {}, headers: Record<string, string> = server) =>
  t.http.post('/v1/admin/recompute').set(headers).send(body);

/** The recompute's status once it is no longer Running. */
const finished = (recomputeUid: string) =>
  eventually(
    async () => {
      const res = await t.http.get(`/v1/admin/recompute/${recomputeUid}`).set(auditor);
      expect([res.body.code, res.body.data.status]).toEqual([200, expect.not.stringMatching(/^Running$/)]);
      return res.body.data;
    },
    60_000,
    50,
  );
const points = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data.points;
const standings = async () =>
  (await t.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data[0].standings.map(
    (s: { userId: string; points: number }) => [s.userId, s.points],
  );

describe('POST /v1/admin/recompute', () => {
  it('under the catalog in force changes nothing and appends no PlayerRecomputed', async () => {
    const res = await start();
    expect(res.body).toMatchObject({ code: 200, data: { status: 'Running' } });
    const done = await finished(res.body.data.recomputeUid);
    expect(done).toMatchObject({ status: 'Completed', applied: true, report: { playersAffected: 0 } });
    expect((await t.service.events.readAll()).filter((e) => e.type === 'PlayerRecomputed')).toEqual([]);
  });

  it('under a published catalog doubling earn doubles exactly its players, in profile and leaderboards; back restores', async () => {
    t = await t.restart({ catalogYaml: DOUBLED });
    const dry = await finished((await start({ dryRun: true })).body.data.recomputeUid);
    expect(dry).toMatchObject({ status: 'Completed', applied: false, report: { playersAffected: 1 } });
    expect(await points(earner)).toBe(20);

    const done = await finished((await start()).body.data.recomputeUid);
    expect(done).toMatchObject({
      status: 'Completed',
      applied: true,
      report: { playersAffected: 1, players: [{ playerId: earner, pointsBefore: 20, pointsAfter: 40 }] },
    });
    expect(await points(earner)).toBe(40);
    expect(await points(trainer)).toBe(3);
    // The action's trace shows the recompute that decided it again.
    const trace = await t.http.get('/v1/audit/trace').query({ referenceId: earned }).set(auditor);
    expect(trace.body.code).toBe(200);
    expect(trace.body.data.chains.map((c: { cause: string }) => c.cause)).toContain('PlayerRecomputed');
    expect(JSON.stringify(trace.body.data)).toContain('under catalog version 2: points 20 -> 40');
    expect(await standings()).toEqual([
      [earner, 40],
      [trainer, 3],
    ]);

    // Back with one player's replay in memory, the other spilled to a scratch file: the same outcome.
    t = await t.restart({ catalogYaml: CATALOG, env: { REPLAY_PLAYERS_IN_MEMORY: '1' } });
    expect((await finished((await start()).body.data.recomputeUid)).status).toBe('Completed');
    expect(await points(earner)).toBe(20);
    expect(await standings()).toEqual([
      [earner, 20],
      [trainer, 3],
    ]);
  });

  it('honours an Idempotency-Key: a retry answers the same recompute', async () => {
    const key = randomUUID();
    const first = await t.http.post('/v1/admin/recompute').set(server).set('Idempotency-Key', key).send({});
    const again = await t.http.post('/v1/admin/recompute').set(server).set('Idempotency-Key', key).send({});
    expect(again.body.data.recomputeUid).toBe(first.body.data.recomputeUid);
    await finished(first.body.data.recomputeUid);
  });

  it('refuses a malformed from (1001), Auditor keys (403), and answers 9031 for an unknown recompute', async () => {
    expect((await start({ from: '2026-13-01T00:00:00' })).body.code).toBe(1001);
    expect((await start({}, auditor)).status).toBe(403);
    expect((await t.http.get(`/v1/admin/recompute/${randomUUID()}`).set(server)).body.code).toBe(9031);
  });

  it('with from, re-decides only the later actions', async () => {
    const done = await finished((await start({ from: '2000-01-01T00:00:00', dryRun: true })).body.data.recomputeUid);
    expect(done).toMatchObject({ status: 'Completed', report: { playersAffected: 0 } });
  });
});
