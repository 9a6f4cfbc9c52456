import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { catalogViewsProjector } from '../../projections/catalog-views';
import { leaderboardsProjector } from '../../projections/leaderboards';
import { ProjectionRunner } from '../../projections/runner';
import { LEADERBOARD_COLLECTIONS } from '../../shared/read-models/leaderboards';
import { MemoryReadStore } from '../../shared/adapters/read-store/memory';
import { server, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({
    catalogYaml: `
version: 1
actions:
  - { uid: act-a, identifier: score, points: 10 }
  - { uid: act-b, identifier: bonus, points: 5 }
leaderboards:
  - { uid: lb-points, label: Points, type: 0 }
  - { uid: lb-country, label: By country, type: 0, scope: country }
  - { uid: lb-country-daily, label: By country today, type: 1, season: daily, scope: country }
  - { uid: lb-teams, label: Teams, type: 0, scope: team, aggregate: sum }
`,
  });
});
afterAll(() => t.close());

let n = 0;
const create = (body: Record<string, unknown>) => t.http.post('/v1/player/create').set(server).send(body);
const update = (body: Record<string, unknown>) => t.http.post('/v1/player/update').set(server).send(body);
const profile = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
const send = async (name: string, playerId: string, timestamp?: number) => {
  const referenceId = `r${++n}`;
  expect(
    (await t.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId, timestamp })).body.code,
  ).toBe(200);
  return referenceId;
};
const board = async (id: string, query: Record<string, string> = {}) =>
  (await t.http.get(`/v1/admin/leaderboards/${id}`).query(query).set(server)).body;
const rows = async (id: string, query: Record<string, string> = {}) => {
  const body = await board(id, query);
  expect(body.code).toBe(200);
  return body.data[0].standings.map((s: { userId?: string; scope?: string; points: number; rank: number }) => [
    s.rank,
    s.userId ?? s.scope,
    s.points,
  ]);
};
/** A unique value per test, so that the suites' standings never mix. */
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

describe('player attributes', () => {
  it('are set at creation, changed and removed (null) by update, and shown in the profile', async () => {
    const playerId = randomUUID();
    const created = await create({ playerId, attributes: { country: 'DE', team: 'red', gone: null } });
    expect(created.body.code).toBe(200);
    expect(created.body.data.attributes).toEqual({ country: 'DE', team: 'red' });
    const updated = await update({ playerId, attributes: { team: null, tier: 'gold' } });
    expect(updated.body.data.attributes).toEqual({ country: 'DE', tier: 'gold' });
    expect((await profile(playerId)).attributes).toEqual({ country: 'DE', tier: 'gold' });
    // An update without attributes keeps them.
    expect((await update({ playerId, username: 'Ann' })).body.data.attributes).toEqual({ country: 'DE', tier: 'gold' });
  });

  it('beyond the bounds (21 keys, a 65-character name, a 257-character value, a number) are refused with 1001', async () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    for (const attributes of [many, { ['n'.repeat(65)]: 'v' }, { country: 'x'.repeat(257) }, { country: 3 }]) {
      const res = await create({ playerId: randomUUID(), attributes });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(1001);
    }
    // At the bounds: accepted.
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`.padEnd(64, 'x'), 'v'.repeat(256)]));
    const playerId = randomUUID();
    expect((await create({ playerId, attributes: twenty })).body.code).toBe(200);
    // An update that would make 21 is refused; one that replaces a key is not.
    const over = await update({ playerId, attributes: { extra: 'v' } });
    expect(over.status).toBe(400);
    expect(over.body.code).toBe(1001);
    expect((await update({ playerId, attributes: { [Object.keys(twenty)[0]]: null, extra: 'v' } })).body.code).toBe(
      200,
    );
  });
});

describe('scoped leaderboards', () => {
  it('keep separate standings per value; a player who moves takes no points along', async () => {
    const de = unique('DE');
    const fr = unique('FR');
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await create({ playerId: a, attributes: { country: de } });
    await create({ playerId: b, attributes: { country: de } });
    await create({ playerId: c, attributes: { country: fr } });
    await send('score', a);
    await send('score', b);
    await send('score', b);
    await send('score', c);
    expect(await rows('lb-country', { scope: de })).toEqual([
      [1, b, 20],
      [2, a, 10],
    ]);
    expect(await rows('lb-country', { scope: fr })).toEqual([[1, c, 10]]);
    // b moves to France: what b earned stays in Germany, what b earns now counts in France.
    await update({ playerId: b, attributes: { country: fr } });
    await send('bonus', b);
    expect(await rows('lb-country', { scope: de })).toEqual([
      [1, b, 20],
      [2, a, 10],
    ]);
    expect(await rows('lb-country', { scope: fr })).toEqual([
      [1, c, 10],
      [2, b, 5],
    ]);
    // A reversal takes the points out of the standings they were counted on.
    const earlier = await send('score', a);
    await update({ playerId: a, attributes: { country: fr } });
    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ name: 'score', referenceId: earlier, playerId: a }))
        .body.code,
    ).toBe(200);
    expect(await rows('lb-country', { scope: de })).toEqual([
      [1, b, 20],
      [2, a, 10],
    ]);
    // A player without the attribute is on no standings of the board; the unscoped board has everyone.
    const none = randomUUID();
    await send('score', none);
    expect((await rows('lb-points', {})).some(([, id]: [number, string]) => id === none)).toBe(true);
    expect(await rows('lb-country', { scope: unique('nowhere') })).toEqual([]);
  });

  it('with playerId and around: the player among the standings of the value asked', async () => {
    const de = unique('DE');
    const p = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const player of p) await create({ playerId: player, attributes: { country: de } });
    for (const [player, times] of [
      [p[0], 3],
      [p[1], 2],
      [p[2], 1],
    ] as const)
      for (let i = 0; i < times; i++) await send('score', player);
    const body = await board('lb-country', { scope: de, playerId: p[1], around: '1' });
    expect(body.code).toBe(200);
    expect(body.data[0].player).toEqual({ rank: 2, points: 20, userId: p[1], username: p[1], imageName: null });
    expect(body.data[0].around.map((s: { userId: string; rank: number }) => [s.rank, s.userId])).toEqual([
      [1, p[0]],
      [2, p[1]],
      [3, p[2]],
    ]);
    // p3 has no standing in that value: no player, no neighbours; nor has p1 in another value.
    expect((await board('lb-country', { scope: de, playerId: p[3], around: '1' })).data[0]).toMatchObject({
      player: null,
      around: [],
    });
    expect((await board('lb-country', { scope: unique('FR'), playerId: p[1] })).data[0].player).toBeNull();
  });

  it('with a season: the period of that value only', async () => {
    const de = unique('DE');
    const [a, b] = [randomUUID(), randomUUID()];
    await create({ playerId: a, attributes: { country: de } });
    await create({ playerId: b, attributes: { country: de } });
    const yesterdayMs = Date.now() - 86_400_000;
    const yesterday = new Date(yesterdayMs).toISOString().slice(0, 10);
    await send('score', a, yesterdayMs);
    await send('bonus', b);
    expect(await rows('lb-country-daily', { scope: de, season: yesterday })).toEqual([[1, a, 10]]);
    expect(await rows('lb-country-daily', { scope: de })).toEqual([[1, b, 5]]);
    expect(await rows('lb-country', { scope: de })).toEqual([
      [1, a, 10],
      [2, b, 5],
    ]);
  });

  it('refuse a read without scope on a scoped board, and with scope on another, with 1001', async () => {
    for (const [id, query] of [
      ['lb-country', {}],
      ['lb-points', { scope: 'DE' }],
      ['lb-teams', { scope: 'red' }],
      ['lb-teams', { playerId: randomUUID() }],
    ] as const) {
      const body = await board(id, query);
      expect([id, body.code]).toEqual([id, 1001]);
    }
  });
});

describe('an aggregate (sum) board', () => {
  it("ranks the values by their players' total, in one list read without scope; a switch leaves the points with the old team", async () => {
    const red = unique('red');
    const blue = unique('blue');
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await create({ playerId: a, attributes: { team: red } });
    await create({ playerId: b, attributes: { team: red } });
    await create({ playerId: c, attributes: { team: blue } });
    await send('score', a);
    await send('bonus', b);
    await send('score', c);
    await send('score', c);
    const mine = async () =>
      (await rows('lb-teams'))
        .filter(([, scope]: [number, string]) => scope === red || scope === blue)
        .map(([, scope, points]: [number, string, number]) => [scope, points]);
    expect(await mine()).toEqual([
      [blue, 20],
      [red, 15],
    ]);
    const entry = (await board('lb-teams')).data[0].standings.find((s: { scope: string }) => s.scope === blue);
    expect(Object.keys(entry).sort()).toEqual(['points', 'rank', 'scope']);
    // a joins blue: red keeps a's 10, blue gets what a earns from now on.
    await update({ playerId: a, attributes: { team: blue } });
    const later = await send('score', a);
    expect(await mine()).toEqual([
      [blue, 30],
      [red, 15],
    ]);
    // Reversed, the action leaves the team it counted for.
    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ name: 'score', referenceId: later, playerId: a })).body
        .code,
    ).toBe(200);
    expect(await mine()).toEqual([
      [blue, 20],
      [red, 15],
    ]);
  });
});

describe('an aggregate board under many reversals', () => {
  it("keeps a value's exact total when reversals take out every contribution it keeps one by one (16)", async () => {
    const green = unique('green');
    const [a, b] = [randomUUID(), randomUUID()];
    await create({ playerId: a, attributes: { team: green } });
    await create({ playerId: b, attributes: { team: green } });
    await send('bonus', a);
    const refs: [string, string][] = [];
    for (let i = 0; i < 16; i++) {
      const player = i % 2 ? a : b;
      refs.push([player, await send('score', player)]);
    }
    const total = async () =>
      (await rows('lb-teams', { top: '1000' })).find(([, scope]: [number, string]) => scope === green)?.[2] ?? null;
    expect(await total()).toBe(165);
    for (const [player, referenceId] of refs.reverse())
      expect(
        (await t.http.post('/v1/action/delete').set(server).send({ name: 'score', referenceId, playerId: player })).body
          .code,
      ).toBe(200);
    expect(await total()).toBe(5);
    // A new contribution adds to the older total.
    await send('score', b);
    expect(await total()).toBe(15);
  });
});

describe('a rebuild', () => {
  // Runs after the suites above: their switches and reversals are in the log.
  it('replaying the log into fresh read models gives the same scoped and aggregate standings', async () => {
    const fresh = new MemoryReadStore();
    const replay = new ProjectionRunner(
      t.service.events,
      fresh,
      [catalogViewsProjector, leaderboardsProjector],
      pino({ level: 'silent' }),
    );
    await replay.start();
    expect(await replay.waitFor(await t.service.events.headPosition(), 30_000)).toBe(true);
    await replay.stop();
    const live = await t.service.readStore.collection(LEADERBOARD_COLLECTIONS.scores).find({}, { sort: { _id: 1 } });
    const rebuilt = await fresh.collection(LEADERBOARD_COLLECTIONS.scores).find({}, { sort: { _id: 1 } });
    expect(live.some((d) => String(d.board) === 'lb-teams')).toBe(true);
    expect(rebuilt).toEqual(live);
  });
});
