import { randomUUID } from 'node:crypto';
import { catalogViewsProjector } from '../../projections/catalog-views';
import { leaderboardsProjector } from '../../projections/leaderboards';
import { LEADERBOARD_COLLECTIONS } from '../../shared/read-models/leaderboards';
import { ProjectionRunner } from '../../projections/runner';
import { MemoryReadStore } from '../../shared/adapters/read-store/memory';
import pino from 'pino';
import { client, mobile, server, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const newPlayer = () => randomUUID();
let refCounter = 0;
const ref = (prefix = 'ref') => `${prefix}-${Date.now()}-${++refCounter}`;

const process_ = (body: Record<string, unknown>, headers: Record<string, string> = server) =>
  t.http.post('/v1/action/process').set(headers).send(body);
const profile = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;

describe('POST /v1/action/process', () => {
  it('awards points, badges, ranks and deliverables, and returns the documented result shape', async () => {
    const playerId = newPlayer();
    const res = await process_({
      name: 'purchase',
      referenceId: ref(),
      playerId,
      details: [{ name: 'amount', value: '120' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(200);
    expect(res.body.data).toEqual({
      playerId,
      referenceId: expect.any(String),
      badges: [
        {
          uid: 'b-first-purchase',
          label: 'First purchase',
          type: 'OneTimeOnly',
          points: 20,
          imageName: null,
          rank: null,
        },
      ],
      triggers: null,
      // Level 1 (target 0) is reached at registration, so this first action reaches no new level.
      achievedLevel: null,
      earnedPoints: 30,
      deliverables: [
        {
          uid: 'gold',
          amount: 5,
          label: 'Gold',
          type: 1,
          imageName: 'https://img.example.com/gold.png',
          details: null,
        },
        { uid: 'chest-silver', amount: 1, label: 'Silver chest', type: 1, imageName: null, details: null },
      ],
      streaks: null,
      missions: null,
      capped: null,
    });
    const p = await profile(playerId);
    expect(p.points).toBe(30);
    expect(p.balances).toEqual(
      expect.arrayContaining([
        { deliverableUid: 'gold', label: 'Gold', type: 1, amount: 5 },
        { deliverableUid: 'chest-silver', label: 'Silver chest', type: 1, amount: 1 },
      ]),
    );
  });

  it('canonicalises the playerId (no dashes, upper case) and rejects a non-UUID with 1002', async () => {
    const playerId = newPlayer();
    const res = await process_({
      name: 'login',
      referenceId: ref(),
      playerId: playerId.replace(/-/g, '').toUpperCase(),
    });
    expect(res.body.data.playerId).toBe(playerId);
    const bad = await process_({ name: 'login', referenceId: ref(), playerId: 'player-1' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(1002);
  });

  it('answers 1001 naming the field for a missing or wrong field, a bad multiplier and a far-future timestamp', async () => {
    const playerId = newPlayer();
    const missing = await process_({ referenceId: ref(), playerId });
    expect(missing.body).toEqual({ code: 1001, data: expect.stringContaining('name') });
    expect((await process_({ name: 'login', referenceId: ref(), playerId, multiplier: 0 })).body.code).toBe(1001);
    expect((await process_({ name: 'login', referenceId: ref(), playerId, multiplier: 'x' })).body.code).toBe(1001);
    expect(
      (await process_({ name: 'login', referenceId: ref(), playerId, timestamp: Date.now() + 10 * 60_000 })).body.code,
    ).toBe(1001);
    expect((await process_({ name: 'login', referenceId: ref(), playerId, details: [{ name: 'a' }] })).body.code).toBe(
      1001,
    );
  });

  it('answers 5004 for an unknown action', async () => {
    const res = await process_({ name: 'teleport', referenceId: ref(), playerId: newPlayer() });
    expect(res.body).toEqual({ code: 5004, data: 'Action does not exist or is inactive' });
  });

  it('charges the cost in the same event, with a provision; 9001 and nothing recorded when short', async () => {
    const playerId = newPlayer();
    const short = await process_({ name: 'spin', referenceId: ref(), playerId });
    expect(short.body.code).toBe(9001);
    expect((await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.code).toBe(5003);
    for (let i = 0; i < 2; i++) await process_({ name: 'purchase', referenceId: ref(), playerId });
    const spin = await process_({ name: 'spin', referenceId: ref(), playerId });
    expect(spin.body.code).toBe(200);
    expect(spin.body.data.provisionUid).toMatch(/^[0-9a-f]{32}$/);
    // Two purchases gave 2 x 5 gold; the spin cost 10; balances at 0 are not listed.
    const balances = (await profile(playerId)).balances;
    expect(balances.find((b: { deliverableUid: string }) => b.deliverableUid === 'gold')).toBeUndefined();
    expect(balances.find((b: { deliverableUid: string }) => b.deliverableUid === 'gems')).toMatchObject({ amount: 1 });
  });

  it('reports a repeated referenceId as 2601, and get-response returns the original', async () => {
    const playerId = newPlayer();
    const referenceId = ref();
    const first = await process_({ name: 'login', referenceId, playerId });
    const again = await process_({ name: 'login', referenceId, playerId });
    expect(again.body).toEqual({ code: 2601, data: 'Duplicate action' });
    const got = await t.http.get('/v1/action/get-response').query({ referenceId }).set(server);
    expect(got.body).toEqual({ code: 200, data: first.body.data });
    expect(
      (await t.http.get('/v1/action/get-response').query({ referenceId: 'never-seen' }).set(server)).body.code,
    ).toBe(5001);
    expect((await t.http.get('/v1/action/get-response').set(server)).body.code).toBe(1001);
  });

  it("answers 2601 for a referenceId another player's action took, before any other refusal, and changes nothing", async () => {
    const referenceId = ref();
    expect((await process_({ name: 'purchase', referenceId, playerId: newPlayer() })).body.code).toBe(200);
    const other = newPlayer();
    // One the other player could do (its append finds the reference taken) and one it could not afford.
    expect((await process_({ name: 'purchase', referenceId, playerId: other })).body).toEqual({
      code: 2601,
      data: 'Duplicate action',
    });
    expect((await process_({ name: 'spin', referenceId, playerId: other })).body).toEqual({
      code: 2601,
      data: 'Duplicate action',
    });
    expect((await t.http.post('/v1/player/profile').set(server).send({ playerId: other })).body.code).toBe(5003);
  });

  it('processes 50 concurrent requests with one referenceId exactly once', async () => {
    const playerId = newPlayer();
    const referenceId = ref('dup');
    const all = await Promise.all(
      Array.from({ length: 50 }, () => process_({ name: 'purchase', referenceId, playerId })),
    );
    const codes = all.map((r) => r.body.code);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 2601)).toHaveLength(49);
    expect((await profile(playerId)).points).toBe(30);
  });

  it('never activates a limited trigger more than its limit, whatever the concurrency', async () => {
    const catalogYaml = `
version: 1
deliverables: [{ uid: gold, label: Gold, type: Prize, kind: Currency }]
actions: [{ uid: act-ping, identifier: ping, points: 1 }]
triggers:
  - { uid: t-first, label: First pings, type: OneTimeOnly, limited: true, limit: 3, points: 7, conditions: [{ action: ping }], deliverables: [{ deliverable: gold, amount: 1 }] }
`;
    const own = await startTestService({ catalogYaml });
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          own.http
            .post('/v1/action/process')
            .set(server)
            .send({ name: 'ping', referenceId: `lim-${i}`, playerId: randomUUID() }),
        ),
      );
      expect(results.every((r) => r.body.code === 200)).toBe(true);
      expect(results.filter((r) => r.body.data.triggers !== null)).toHaveLength(3);
    } finally {
      await own.close();
    }
  });

  it('applies nested actions in order, each with its own result or failure (Server keys)', async () => {
    const playerId = newPlayer();
    const res = await process_({
      name: 'login',
      referenceId: ref(),
      playerId,
      actions: [
        { name: 'purchase', referenceId: ref(), playerId },
        { name: 'teleport', referenceId: ref(), playerId },
      ],
    });
    expect(res.body.code).toBe(200);
    expect(res.body.data.nested).toHaveLength(2);
    expect(res.body.data.nested[0].badges[0].uid).toBe('b-first-purchase');
    expect(res.body.data.nested[1]).toEqual({ code: 5004, data: 'Action does not exist or is inactive' });
  });

  it('refuses a nested action carrying actions of its own (nesting is one level deep), naming it, and runs nothing', async () => {
    const playerId = newPlayer();
    const head = await t.service.events.headPosition();
    const body = {
      name: 'login',
      referenceId: ref(),
      playerId,
      actions: [
        { name: 'purchase', referenceId: ref(), playerId },
        {
          name: 'purchase',
          referenceId: ref(),
          playerId,
          actions: [{ name: 'purchase', referenceId: ref(), playerId }],
        },
      ],
    };
    const expected = {
      code: 1001,
      data: 'actions[1].actions: a nested action cannot carry actions of its own (nesting is one level deep)',
    };
    const res = await process_(body);
    expect([res.status, res.body]).toEqual([400, expected]);
    // Even an empty list: the field is not silently dropped.
    expect(
      (await process_({ ...body, actions: [{ name: 'purchase', referenceId: ref(), playerId, actions: [] }] })).body,
    ).toEqual({ ...expected, data: expected.data.replace('[1]', '[0]') });
    expect((await t.http.post('/v1/action/delete').set(server).send(body)).body).toEqual(expected);
    expect(await t.service.events.headPosition()).toBe(head);
  });

  it('lets Client keys process with their tenant domain', async () => {
    const res = await process_({ name: 'login', referenceId: ref(), playerId: newPlayer() }, client);
    expect(res.body.code).toBe(200);
  });
});

describe('POST /v1/action/delete', () => {
  it('reverses everything the action granted, and get-response shows reversed: true', async () => {
    const playerId = newPlayer();
    const referenceId = ref();
    await process_({ name: 'purchase', referenceId, playerId });
    const res = await t.http.post('/v1/action/delete').set(mobile).send({ name: 'purchase', referenceId, playerId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200 });
    const p = await profile(playerId);
    expect(p.points).toBe(0);
    expect(p.badges).toEqual([]);
    expect(p.balances).toEqual([]);
    const got = await t.http.get('/v1/action/get-response').query({ referenceId }).set(server);
    expect(got.body.data.reversed).toBe(true);
    // A reversed referenceId stays used.
    expect((await process_({ name: 'purchase', referenceId, playerId })).body.code).toBe(2601);
  });

  it('answers 101 with nothing changed: unknown ref, wrong name, wrong player, already reversed, prize spent', async () => {
    const playerId = newPlayer();
    const referenceId = ref();
    await process_({ name: 'purchase', referenceId, playerId });
    const del = (body: Record<string, unknown>) => t.http.post('/v1/action/delete').set(server).send(body);
    expect((await del({ name: 'purchase', referenceId: 'unknown-ref', playerId })).body.code).toBe(101);
    expect((await del({ name: 'login', referenceId, playerId })).body.code).toBe(101);
    expect((await del({ name: 'purchase', referenceId, playerId: newPlayer() })).body.code).toBe(101);
    expect((await profile(playerId)).points).toBe(30);
    expect((await del({ name: 'purchase', referenceId, playerId })).body.code).toBe(200);
    expect((await del({ name: 'purchase', referenceId, playerId })).body.code).toBe(101);

    // The gold from two purchases is spent on a spin: taking the second purchase back would go negative.
    const spender = newPlayer();
    const second = ref();
    await process_({ name: 'purchase', referenceId: ref(), playerId: spender });
    await process_({ name: 'purchase', referenceId: second, playerId: spender });
    await process_({ name: 'spin', referenceId: ref(), playerId: spender });
    const before = await profile(spender);
    const res = await del({ name: 'purchase', referenceId: second, playerId: spender });
    expect(res.body.code).toBe(101);
    expect(await profile(spender)).toEqual(before);
  });
});

describe('POST /v1/action/delete input and access', () => {
  it('answers 1001 for a missing body or field, 1002 for a bad player', async () => {
    const none = await t.http.post('/v1/action/delete').set(server);
    expect([none.status, none.body.code]).toEqual([400, 1001]);
    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ referenceId: 'r', playerId: newPlayer() })).body,
    ).toEqual({ code: 1001, data: 'name: is required' });
    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ name: 'login', playerId: newPlayer() })).body,
    ).toEqual({ code: 1001, data: 'referenceId: is required' });
    const bad = await t.http
      .post('/v1/action/delete')
      .set(server)
      .send({ name: 'login', referenceId: 'r', playerId: 'nobody' });
    expect([bad.status, bad.body.code]).toEqual([400, 1002]);
  });

  it('answers 4001 without a key, 4002 for a Client key without a domain, 4003 for a Client key, 4004 for its nested actions', async () => {
    const body = { name: 'login', referenceId: ref(), playerId: newPlayer() };
    const anonymous = await t.http.post('/v1/action/delete').send(body);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 4001]);
    expect((await t.http.post('/v1/action/delete').set({ AuthKey: client.AuthKey }).send(body)).body.code).toBe(4002);
    expect((await t.http.post('/v1/action/delete').set(client).send(body)).body.code).toBe(4003);
    expect(
      (
        await t.http
          .post('/v1/action/delete')
          .set(client)
          .send({ ...body, actions: [] })
      ).body.code,
    ).toBe(4004);
  });

  it('lets Mobile keys reverse, and get-response answers 1001 without a referenceId', async () => {
    const playerId = newPlayer();
    const referenceId = ref();
    await process_({ name: 'login', referenceId, playerId }, mobile);
    expect(
      (await t.http.post('/v1/action/delete').set(mobile).send({ name: 'login', referenceId, playerId })).body,
    ).toEqual({ code: 200 });
    expect((await t.http.get('/v1/action/get-response').set(server)).body.code).toBe(1001);
  });
});

describe('players', () => {
  it('registers a player once (5002 with HTTP 200 after) and shows the username on leaderboards and in the profile', async () => {
    const playerId = newPlayer();
    const created = await t.http
      .post('/v1/player/create')
      .set(server)
      .send({ playerId, username: 'Ada', imageName: 'https://img.example.com/ada.png' });
    expect(created.body.code).toBe(200);
    const again = await t.http.post('/v1/player/create').set(server).send({ playerId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ code: 5002, data: 'PlayerId already exists' });
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId: 'nope' })).body.code).toBe(1002);
    expect((await t.http.post('/v1/player/create').set(client).send({ playerId })).body.code).toBe(4003);
    await process_({ name: 'purchase', referenceId: ref(), playerId, details: [{ name: 'amount', value: '1' }] });
    const board = await t.http.get('/v1/admin/leaderboards/lb-all').query({ playerId, top: 1000 }).set(server);
    const mine = board.body.data[0].standings.find((s: { userId: string }) => s.userId === playerId);
    expect(mine).toMatchObject({ username: 'Ada', imageName: 'https://img.example.com/ada.png', points: 30 });
    expect(board.body.data[0].player).toMatchObject({ userId: playerId, points: 30 });
    expect(await profile(playerId)).toMatchObject({ playerId, username: 'Ada' });
    // Registered by an action, a player is named by its id.
    const other = newPlayer();
    await process_({ name: 'purchase', referenceId: ref(), playerId: other });
    expect(await profile(other)).toMatchObject({ username: other });
  });
});

describe("a player's time zone", () => {
  it("is set at registration and by /v1/player/update, and the profile shows it or the catalog's", async () => {
    const playerId = newPlayer();
    const created = await t.http
      .post('/v1/player/create')
      .set(server)
      .send({ playerId, username: 'Ada', timeZone: 'Pacific/Auckland' });
    expect(created.body).toEqual({
      code: 200,
      data: { playerId, username: 'Ada', imageName: null, timeZone: 'Pacific/Auckland', attributes: {} },
    });
    expect((await profile(playerId)).timeZone).toBe('Pacific/Auckland');

    const update = (body: Record<string, unknown>, headers: Record<string, string> = server) =>
      t.http.post('/v1/player/update').set(headers).send(body);
    expect((await update({ playerId, timeZone: 'Pacific/Kiritimati' }, mobile)).body).toEqual({
      code: 200,
      data: { playerId, username: 'Ada', imageName: null, timeZone: 'Pacific/Kiritimati', attributes: {} },
    });
    expect((await profile(playerId)).timeZone).toBe('Pacific/Kiritimati');
    expect(
      (await update({ playerId, username: 'Grace', imageName: 'https://img.example.com/g.png', timeZone: null })).body
        .data,
    ).toEqual({
      playerId,
      username: 'Grace',
      imageName: 'https://img.example.com/g.png',
      timeZone: null,
      attributes: {},
    });
    // The test catalog has no settings.timezone: UTC.
    expect((await profile(playerId)).timeZone).toBe('UTC');

    expect((await update({ playerId, timeZone: 'Mars/Olympus_Mons' })).body).toEqual({
      code: 1001,
      data: 'timeZone: unknown time zone "Mars/Olympus_Mons"',
    });
    expect(
      (await t.http.post('/v1/player/create').set(server).send({ playerId: newPlayer(), timeZone: '+01:00' })).body,
    ).toEqual({ code: 1001, data: 'timeZone: unknown time zone "+01:00"' });
    expect((await update({ playerId: newPlayer(), timeZone: 'UTC' })).body).toEqual({
      code: 5003,
      data: 'PlayerId does not exist',
    });
    expect((await update({ playerId: 'nope' })).body.code).toBe(1002);
    expect((await update({ playerId }, client)).body.code).toBe(4003);
  });

  it('is stored and shown by its canonical name, however a client spells it', async () => {
    const playerId = newPlayer();
    const created = await t.http.post('/v1/player/create').set(server).send({ playerId, timeZone: 'europe/berlin' });
    expect(created.body.data.timeZone).toBe('Europe/Berlin');
    expect((await profile(playerId)).timeZone).toBe('Europe/Berlin');
    const updated = await t.http.post('/v1/player/update').set(mobile).send({ playerId, timeZone: 'AMERICA/new_YORK' });
    expect(updated.body.data.timeZone).toBe('America/New_York');
    expect((await profile(playerId)).timeZone).toBe('America/New_York');
  });

  it('shows on the leaderboards the name and picture an update gives', async () => {
    const playerId = newPlayer();
    await process_({ name: 'purchase', referenceId: ref(), playerId, details: [{ name: 'amount', value: '1' }] });
    await t.http
      .post('/v1/player/update')
      .set(server)
      .send({ playerId, username: 'Lin', imageName: 'https://img.example.com/lin.png' });
    const board = await t.http.get('/v1/admin/leaderboards/lb-all').query({ playerId, top: 1000 }).set(server);
    expect(board.body.data[0].standings.find((s: { userId: string }) => s.userId === playerId)).toMatchObject({
      username: 'Lin',
      imageName: 'https://img.example.com/lin.png',
    });
  });
});

describe('leaderboards', () => {
  it('ranks ties 1, 2, 2, 4 with the earlier reacher first, counts actions, and forgets reversed actions', async () => {
    const catalogYaml = `
version: 1
actions:
  - { uid: act-a, identifier: score, points: 10 }
  - { uid: act-b, identifier: bonus, points: 5 }
leaderboards:
  - { uid: lb-points, label: Points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-count, label: Scores, type: 0, metric: { action: score }, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-daily, label: Daily, type: 1, season: daily, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;
    const own = await startTestService({ catalogYaml });
    try {
      const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const send = (name: string, playerId: string, referenceId: string, timestamp?: number) =>
        own.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId, timestamp });
      await send('score', a, 'a1');
      await send('score', a, 'a2'); // a: 20
      await send('score', c, 'c1'); // c: 10, reached before b
      await send('score', b, 'b1'); // b: 10
      await send('bonus', d, 'd1'); // d: 5
      const board = async (id: string, query: Record<string, string> = {}) =>
        (await own.http.get(`/v1/admin/leaderboards/${id}`).query(query).set(server)).body.data[0];
      expect(
        (await board('lb-points')).standings.map((s: { rank: number; userId: string; points: number }) => [
          s.rank,
          s.userId,
          s.points,
        ]),
      ).toEqual([
        [1, a, 20],
        [2, c, 10],
        [2, b, 10],
        [4, d, 5],
      ]);
      expect((await board('lb-points', { top: '2' })).standings).toHaveLength(2);
      // A player's own standing, ranked like the list, also from outside the page shown.
      const rankOf = async (playerId: string) => (await board('lb-points', { top: '1', playerId })).player;
      expect(await rankOf(b)).toMatchObject({ rank: 2, userId: b, points: 10 });
      expect(await rankOf(d)).toMatchObject({ rank: 4, userId: d, points: 5 });
      expect(await rankOf(a)).toMatchObject({ rank: 1, userId: a, points: 20 });
      expect(
        (await board('lb-count')).standings.map((s: { userId: string; points: number }) => [s.userId, s.points]),
      ).toEqual([
        [a, 2],
        [c, 1],
        [b, 1],
      ]);
      // Yesterday's action lands in yesterday's season, not today's.
      await send('score', d, 'd2', Date.now() - 86_400_000);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      expect(
        (await board('lb-daily', { season: yesterday })).standings.map((s: { userId: string }) => s.userId),
      ).toEqual([d]);
      expect((await board('lb-daily')).standings.map((s: { userId: string }) => s.userId)).not.toContain(undefined);

      await own.http.post('/v1/action/delete').set(server).send({ name: 'score', referenceId: 'a2', playerId: a });
      expect(
        (await board('lb-points')).standings.map((s: { rank: number; userId: string; points: number }) => [
          s.rank,
          s.userId,
          s.points,
        ]),
      ).toEqual([
        [1, d, 15],
        [2, a, 10],
        [2, c, 10],
        [2, b, 10],
      ]);
      expect(await rankOf(d)).toMatchObject({ rank: 1, points: 15 });
      expect(await rankOf(b)).toMatchObject({ rank: 2, points: 10 });
      // A player whose only contribution is reversed leaves the standings: no rank, and nobody's moves.
      await own.http.post('/v1/action/delete').set(server).send({ name: 'score', referenceId: 'b1', playerId: b });
      expect(await rankOf(b)).toBeNull();
      expect(
        (await board('lb-points')).standings.map((s: { rank: number; userId: string }) => [s.rank, s.userId]),
      ).toEqual([
        [1, d],
        [2, a],
        [2, c],
      ]);
      expect(await rankOf(c)).toMatchObject({ rank: 2, points: 10 });

      // Replaying the log into fresh read models gives the same standings.
      const fresh = new MemoryReadStore();
      const replay = new ProjectionRunner(
        own.service.events,
        fresh,
        [catalogViewsProjector, leaderboardsProjector],
        pino({ level: 'silent' }),
      );
      await replay.start();
      expect(await replay.waitFor(await own.service.events.headPosition(), 10_000)).toBe(true);
      await replay.stop();
      const live = await own.service.readStore
        .collection(LEADERBOARD_COLLECTIONS.scores)
        .find({}, { sort: { _id: 1 } });
      const rebuilt = await fresh.collection(LEADERBOARD_COLLECTIONS.scores).find({}, { sort: { _id: 1 } });
      expect(rebuilt).toEqual(live);
    } finally {
      await own.close();
    }
  });

  it('around=N shows a player with up to N standings above and below: at the top, the bottom, in ties, without a standing, and in a season', async () => {
    const own = await startTestService({
      catalogYaml: `
version: 1
actions:
  - { uid: act-a, identifier: score, points: 10 }
  - { uid: act-b, identifier: bonus, points: 5 }
leaderboards:
  - { uid: lb-points, label: Points, type: 0 }
  - { uid: lb-daily, label: Daily, type: 1, season: daily }
`,
    });
    try {
      const p = Array.from({ length: 6 }, () => randomUUID());
      let n = 0;
      const send = async (name: string, playerId: string, timestamp?: number) =>
        expect(
          (
            await own.http
              .post('/v1/action/process')
              .set(server)
              .send({ name, playerId, referenceId: `r${++n}`, timestamp })
          ).body.code,
        ).toBe(200);
      // Today: p0 30; p1, p2, p3 20 (reached in that order); p4 10; p5 5.
      for (const [player, actions] of [
        [p[0], ['score', 'score', 'score']],
        [p[1], ['score', 'score']],
        [p[2], ['score', 'score']],
        [p[3], ['score', 'score']],
        [p[4], ['score']],
        [p[5], ['bonus']],
      ] as const) {
        for (const action of actions) await send(action, player);
      }
      // Yesterday (recorded last): p4 10, p5 5. All time: p0 30; p1, p2, p3, p4 20; p5 10.
      const yesterdayMs = Date.now() - 86_400_000;
      await send('score', p[4], yesterdayMs);
      await send('bonus', p[5], yesterdayMs);
      const yesterday = new Date(yesterdayMs).toISOString().slice(0, 10);
      const ask = async (query: Record<string, string>, key: Record<string, string> = server, board = 'lb-points') =>
        (await own.http.get(`/v1/admin/leaderboards/${board}`).query(query).set(key)).body;
      const around = async (player: string, width: number, extra: Record<string, string> = {}) => {
        const { board = 'lb-points', ...query } = extra;
        const body = await ask({ playerId: player, around: String(width), ...query }, server, board);
        expect(body.code).toBe(200);
        return body.data[0].around.map((s: { rank: number; userId: string; points: number }) => [
          s.rank,
          s.userId,
          s.points,
        ]);
      };
      // At the top: nothing above.
      expect(await around(p[0], 1)).toEqual([
        [1, p[0], 30],
        [2, p[1], 20],
      ]);
      // In a tie: the rows tied with the player share their rank, earlier reachers above.
      expect(await around(p[2], 1)).toEqual([
        [2, p[1], 20],
        [2, p[2], 20],
        [2, p[3], 20],
      ]);
      // At the bottom: nothing below; the row above is in a tie that began further up and keeps its rank.
      expect(await around(p[5], 1)).toEqual([
        [2, p[4], 20],
        [6, p[5], 10],
      ]);
      // A width past the top shows everyone above.
      expect(await around(p[5], 50)).toEqual([
        [1, p[0], 30],
        [2, p[1], 20],
        [2, p[2], 20],
        [2, p[3], 20],
        [2, p[4], 20],
        [6, p[5], 10],
      ]);
      // No standing on the board: [] (and no player).
      const stranger = randomUUID();
      expect(await around(stranger, 3)).toEqual([]);
      expect((await ask({ playerId: stranger, around: '3' })).data[0].player).toBeNull();
      // With a season: that period's standings only.
      expect(await around(p[5], 2, { board: 'lb-daily', season: yesterday })).toEqual([
        [1, p[4], 10],
        [2, p[5], 5],
      ]);
      expect(await around(p[0], 2, { board: 'lb-daily', season: yesterday })).toEqual([]);
      // Without a season, the current period's: today's.
      expect(await around(p[4], 1, { board: 'lb-daily' })).toEqual([
        [2, p[3], 20],
        [5, p[4], 10],
        [6, p[5], 5],
      ]);
      // Not asked for: no around field, with or without playerId.
      expect((await ask({})).data[0]).not.toHaveProperty('around');
      expect((await ask({ playerId: p[0] })).data[0]).not.toHaveProperty('around');
      // Every tier that may read the board may ask.
      for (const key of [mobile, client])
        expect((await ask({ playerId: p[1], around: '1' }, key)).data[0].around).toHaveLength(3);
      // 1 to 50, with playerId; 1001 otherwise.
      for (const bad of ['0', '51', '-1', '2.5', 'five', '']) {
        const body = await ask({ playerId: p[0], around: bad });
        expect([bad, body.code, body.data]).toEqual([bad, 1001, 'around: must be a whole number from 1 to 50']);
      }
      expect(await ask({ around: '5' })).toEqual({
        code: 1001,
        data: 'around: needs playerId (the player to show with their neighbours)',
      });
    } finally {
      await own.close();
    }
  });

  it('after reversals, in either order, ties rank as in a history without the reversed actions', async () => {
    const own = await startTestService({
      catalogYaml: `
version: 1
actions:
  - { uid: act-a, identifier: score, points: 10 }
  - { uid: act-b, identifier: bonus, points: 5 }
leaderboards:
  - { uid: lb-weekly, label: Weekly, type: 1, season: weekly }
`,
    });
    try {
      const standings = async () =>
        (await own.http.get('/v1/admin/leaderboards/lb-weekly').set(server)).body.data[0].standings.map(
          (s: { rank: number; userId: string; points: number }) => [s.rank, s.userId, s.points],
        );
      for (const order of [
        ['r2', 'r1'],
        ['r1', 'r2'],
      ]) {
        const [b, c] = [randomUUID(), randomUUID()];
        const send = (name: string, playerId: string, referenceId: string) =>
          own.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId });
        await send('score', b, `${b}-b`); // B reaches 10
        await send('score', c, `${c}-c`); // C reaches 10 after B
        await send('bonus', b, `${b}-r1`);
        await send('bonus', b, `${b}-r2`);
        for (const r of order)
          expect(
            (
              await own.http
                .post('/v1/action/delete')
                .set(server)
                .send({ name: 'bonus', playerId: b, referenceId: `${b}-${r}` })
            ).body.code,
          ).toBe(200);
        const mine = (await standings()).filter(([, userId]: [number, string]) => userId === b || userId === c);
        expect([order, mine]).toEqual([
          order,
          [
            [expect.any(Number), b, 10],
            [expect.any(Number), c, 10],
          ],
        ]);
      }
    } finally {
      await own.close();
    }
  });
});
