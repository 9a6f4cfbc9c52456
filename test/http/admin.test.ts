import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { readRunConfig } from '../../shared/adapters/config/env';
import { BullMqJobScheduler } from '../../shared/adapters/jobs/bullmq';
import { SqliteJobScheduler } from '../../shared/adapters/jobs/embedded';
import { backing } from '../support/backing';
import { eventually } from '../support/process';
import { auditor, client, KEYS, mobile, server, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('health', () => {
  it('answers liveness (/health) and readiness (/health/ready) without a key', async () => {
    const res = await t.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, data: { status: 'ok' } });
    const ready = await t.http.get('/health/ready');
    expect([ready.status, ready.body]).toEqual([200, { code: 200, data: { status: 'ready' } }]);
  });
});

describe('admin views of the demo catalog', () => {
  it('lists active actions with actionObjects, in catalog order', async () => {
    const res = await t.http.get('/v1/admin/actions').set(server);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(200);
    expect(res.body.data.map((a: { identifier: string }) => a.identifier)).toEqual([
      'login',
      'purchase',
      'spin',
      'deposit_failed',
      'watch_ad',
      'daily_quest',
    ]);
    const purchase = res.body.data[1];
    expect(purchase).toEqual({
      uid: 'act-purchase',
      identifier: 'purchase',
      points: 10,
      pointGap: 0,
      cost: 0,
      costLabel: null,
      createDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      imageName: null,
      isUserAttribute: false,
      isActive: true,
      caps: [],
      actionObjects: [
        { label: 'amount', actionUId: 'act-purchase', type: 1, typeLabel: 'Number' },
        { label: 'category', actionUId: 'act-purchase', type: 2, typeLabel: 'String' },
      ],
    });
    expect(res.body.data[0].actionObjects).toBeNull();
    expect(res.body.data[2]).toMatchObject({ cost: 10, costLabel: 'Gold' });
  });

  it('shows an action detail with deliverables, wrapped in an array', async () => {
    const res = await t.http.get('/v1/admin/actions/act-purchase').set(server);
    expect(res.body.code).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].deliverables).toEqual([
      { label: 'Gold', uid: 'gold', imageName: 'https://img.example.com/gold.png', amount: 5, type: 'Prize' },
    ]);
  });

  it('answers 9001 for an unknown action', async () => {
    const res = await t.http.get('/v1/admin/actions/nope').set(server);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 9001, data: 'Action does not exist' });
  });

  it('lists badges without deliverables and shows one with them', async () => {
    const list = await t.http.get('/v1/admin/badges').set(server);
    expect(list.body.data.map((b: { uid: string }) => b.uid)).toEqual([
      'b-first-purchase',
      'b-vip',
      'b-electronics-fan',
      'b-shopper',
    ]);
    expect(list.body.data[1]).toEqual({
      uid: 'b-vip',
      label: 'VIP Customer',
      points: 100,
      description: null,
      startDate: null,
      endDate: null,
      requiredBadgeUId: 'b-first-purchase',
      rankSetUId: null,
      imageName: null,
      isActive: true,
      type: 'OneTimeOnly',
      segment: null,
    });
    const detail = await t.http.get('/v1/admin/badges/b-vip').set(server);
    expect(detail.body.data[0].deliverables).toEqual([
      { label: 'Welcome VIP banner', uid: 'banner-vip', imageName: null, amount: 1, type: 'Content' },
      { label: 'Double gold', uid: 'boost-gold', imageName: null, amount: 1, type: 'Prize' },
    ]);
    // What earns it, as the catalog states it: the challenge's parts not given are null.
    expect(detail.body.data[0].conditions).toEqual([
      {
        action: 'purchase',
        filters: [],
        challenge: { times: null, sum: { field: 'amount', atLeast: 1000 }, withinDays: 30, between: null },
      },
    ]);
    const filtered = await t.http.get('/v1/admin/badges/b-electronics-fan').set(server);
    expect(filtered.body.data[0].conditions[0].filters).toEqual([{ name: 'category', op: 'eq', value: 'electronics' }]);
    expect((await t.http.get('/v1/admin/badges/nope').set(server)).body).toEqual({
      code: 9004,
      data: 'Badge does not exist',
    });
  });

  it('lists triggers with randomizedPrize and limited; 9005 for an unknown one', async () => {
    const list = await t.http.get('/v1/admin/triggers').set(server);
    expect(list.body.data[1]).toMatchObject({
      uid: 't-lucky',
      type: 'OneTimeOnly',
      randomizedPrize: true,
      limited: true,
      segment: null,
    });
    expect(list.body.data[1].deliverables).toBeUndefined();
    const detail = await t.http.get('/v1/admin/triggers/t-lucky').set(server);
    expect(detail.body.data[0].deliverables).toHaveLength(2);
    expect(detail.body.data[0].conditions).toEqual([
      { action: 'login', filters: [], challenge: { times: 3, sum: null, withinDays: null, between: null } },
    ]);
    expect((await t.http.get('/v1/admin/triggers/nope').set(server)).body.code).toBe(9005);
  });

  it('lists levels by level', async () => {
    const res = await t.http.get('/v1/admin/levels').set(server);
    expect(res.body.data.map((l: { level: number }) => l.level)).toEqual([1, 2, 3, 4]);
    expect(res.body.data[1]).toEqual({
      uid: 'lvl-2',
      label: 'Regular',
      level: 2,
      description: '',
      target: 100,
      imageName: null,
      isActive: true,
    });
  });

  it('filters rank sets by isactive', async () => {
    expect((await t.http.get('/v1/admin/ranks').set(server)).body.data).toEqual([
      {
        uid: 'rs-shopper',
        label: 'Shopper ranks',
        isActive: true,
        ranks: [
          { rank: 1, label: 'Bronze', times: 2, sum: null, points: 10 },
          { rank: 2, label: 'Silver', times: 5, sum: null, points: 25 },
          { rank: 3, label: 'Gold', times: 10, sum: null, points: 100 },
        ],
      },
    ]);
    const badges = (await t.http.get('/v1/admin/badges').set(server)).body.data as {
      uid: string;
      rankSetUId: string | null;
    }[];
    expect(badges.find((b) => b.uid === 'b-shopper')).toMatchObject({ rankSetUId: 'rs-shopper' });
    expect(badges.find((b) => b.uid === 'b-vip')).toMatchObject({ rankSetUId: null });
    expect((await t.http.get('/v1/admin/ranks?isactive=true').set(server)).body.data).toHaveLength(1);
    expect((await t.http.get('/v1/admin/ranks?isactive=false').set(server)).body.data).toEqual([]);
    const bad = await t.http.get('/v1/admin/ranks?isactive=maybe').set(server);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(1001);
  });

  it('lists leaderboards and shows one with empty standings; 9007 for an unknown one', async () => {
    const list = await t.http.get('/v1/admin/leaderboards').set(server);
    expect(list.body.data.map((l: { uid: string }) => l.uid)).toEqual(['lb-all', 'lb-weekly', 'lb-buyers']);
    expect(list.body.data[1]).toEqual({
      uid: 'lb-weekly',
      label: 'Weekly points',
      description: '',
      startDate: '2026-01-01T00:00:00',
      endDate: '2030-01-01T00:00:00',
      imageName: null,
      randomizedPrize: false,
      limited: false,
      isActive: true,
      type: 1,
      period: 'Week',
      metric: 'points',
      scope: null,
      aggregate: null,
    });
    expect(list.body.data[0]).toMatchObject({ type: 0, period: null, metric: 'points' });
    expect(list.body.data[2]).toMatchObject({ period: null, metric: { action: 'purchase' } });
    const detail = await t.http.get('/v1/admin/leaderboards/lb-all').set(server);
    expect(detail.body.data).toEqual([{ ...list.body.data[0], standings: [] }]);
    expect((await t.http.get('/v1/admin/leaderboards/nope').set(server)).body.code).toBe(9007);
    expect((await t.http.get('/v1/admin/leaderboards/lb-all?top=0').set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/admin/leaderboards/lb-all?top=1001').set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/admin/leaderboards/lb-weekly?season=2026-13').set(server)).body.code).toBe(1001);
  });

  it('refuses a season that names no period on every board, and ignores a real one on an all-time board', async () => {
    const board = (uid: string, season: string) =>
      t.http.get(`/v1/admin/leaderboards/${uid}`).query({ season }).set(server);
    for (const uid of ['lb-all', 'lb-weekly', 'nope']) {
      for (const season of ['garbage', '2026-13', '2025-W53', '2026-02-30', '']) {
        const res = await board(uid, season);
        expect([uid, season, res.status, res.body]).toEqual([
          uid,
          season,
          400,
          { code: 1001, data: expect.stringMatching(/^season: /) },
        ]);
      }
    }
    // A weekly key on a weekly board; any real period on an all-time board, which has one period.
    expect((await board('lb-weekly', '2026-W47')).body.code).toBe(200);
    for (const season of ['2026-W47', '2026-11', '2026-11-21'])
      expect((await board('lb-all', season)).body.code).toBe(200);
    expect((await board('lb-weekly', '2026-11')).body).toEqual({
      code: 1001,
      data: 'season: not a weekly period (e.g. 2026-W47)',
    });
  });

  it('lists stores with bundles and contents', async () => {
    const list = await t.http.get('/v1/admin/stores').set(server);
    expect(list.body.data).toHaveLength(1);
    const hoodie = list.body.data[0].storeBundles[2];
    expect(hoodie).toEqual({
      uid: 'bd-hoodie',
      label: 'Hoodie',
      description: null,
      cost: 30,
      costDeliverableUId: 'gems',
      costLabel: 'Gems',
      imageName: null,
      costImageName: null,
      initialStock: 5,
      remainingStock: 5,
      storeBundleContents: [{ deliverableUid: 'hoodie', label: 'Hoodie', amount: 1, type: 1, imageName: null }],
    });
    const detail = await t.http.get('/v1/admin/stores/st-main').set(server);
    expect(detail.body.data).toEqual(list.body.data);
  });

  it("shows an action's caps in its list and detail views", async () => {
    const watchAd = [
      { period: 'Day', times: 5, points: null },
      { period: 'Week', times: null, points: 50 },
    ];
    const list = await t.http.get('/v1/admin/actions').set(auditor);
    const views = new Map(list.body.data.map((a: { identifier: string }) => [a.identifier, a]));
    expect(views.get('watch_ad')).toMatchObject({ caps: watchAd });
    expect(views.get('login')).toMatchObject({ caps: [] });
    expect((await t.http.get('/v1/admin/actions/act-watch-ad').set(server)).body.data[0].caps).toEqual(watchAd);
  });

  it('lists the streaks and shows one with its conditions and milestones; 9014 for an unknown one', async () => {
    const streak = {
      uid: 's-daily-quest',
      label: 'Daily quest',
      description: null,
      imageName: null,
      isActive: true,
      period: 'Day',
      freezes: { max: 2, earnEvery: 7 },
      segment: null,
    };
    const list = await t.http.get('/v1/admin/streaks').set(auditor);
    expect(list.body).toEqual({ code: 200, data: [streak] });
    const detail = await t.http.get('/v1/admin/streaks/s-daily-quest').set(server);
    expect(detail.body.data).toEqual([
      {
        ...streak,
        conditions: [{ action: 'daily_quest', filters: [] }],
        milestones: [
          { length: 3, points: 10, deliverables: [] },
          {
            length: 7,
            points: 50,
            deliverables: [{ label: 'Silver chest', uid: 'chest-silver', imageName: null, amount: 1, type: 'Prize' }],
          },
        ],
      },
    ]);
    const unknown = await t.http.get('/v1/admin/streaks/nope').set(server);
    expect([unknown.status, unknown.body]).toEqual([400, { code: 9014, data: 'Streak does not exist' }]);
  });

  it('lists the missions and shows one with its steps and deliverables; 9015 for an unknown one', async () => {
    const list = await t.http.get('/v1/admin/missions').set(auditor);
    expect(list.body.data.map((m: { uid: string }) => m.uid)).toEqual(['m-daily-routine', 'm-big-spender']);
    const routine = {
      uid: 'm-daily-routine',
      label: 'Daily routine',
      description: "Log in, then finish the daily quest, every day of the player's calendar",
      imageName: null,
      isActive: true,
      startDate: null,
      endDate: null,
      requires: { badge: null, level: null },
      ordered: true,
      // Written `Daily` in the demo catalog: shown as the catalog reference spells it.
      repeat: 'Day',
      points: 5,
      segment: null,
    };
    expect(list.body.data[0]).toEqual(routine);
    expect(list.body.data[1]).toMatchObject({
      requires: { badge: 'b-vip', level: null },
      ordered: false,
      repeat: 'None',
    });
    const detail = await t.http.get('/v1/admin/missions/m-daily-routine').set(server);
    const noChallenge = { times: null, sum: null, withinDays: null, between: null };
    expect(detail.body.data).toEqual([
      {
        ...routine,
        steps: [
          {
            uid: 'm-routine-login',
            label: 'Log in',
            condition: { action: 'login', filters: [], challenge: noChallenge },
          },
          {
            uid: 'm-routine-quest',
            label: 'Finish the daily quest',
            condition: { action: 'daily_quest', filters: [], challenge: noChallenge },
          },
        ],
        deliverables: [{ label: 'Gems', uid: 'gems', imageName: null, amount: 10, type: 'Prize' }],
      },
    ]);
    const unknown = await t.http.get('/v1/admin/missions/nope').set(server);
    expect([unknown.status, unknown.body]).toEqual([400, { code: 9015, data: 'Mission does not exist' }]);
  });

  it('lists the currencies with their expiry and earn caps', async () => {
    const res = await t.http.get('/v1/admin/currencies').set(auditor);
    expect(res.body.data.map((c: { uid: string }) => c.uid)).toEqual(['gold', 'gems', 'stars']);
    expect(res.body.data[1]).toEqual({
      uid: 'gems',
      label: 'Gems',
      description: null,
      imageName: null,
      isActive: true,
      expiry: null,
      earnCaps: [{ period: 'Day', amount: 1000 }],
    });
    expect(res.body.data[2]).toMatchObject({ expiry: { afterDays: 30, endOf: null }, earnCaps: [] });
  });
});

describe('authentication and tiers', () => {
  it('answers 4001 (HTTP 401) without a key or with an unknown one', async () => {
    for (const headers of [{}, { AuthKey: 'wrong-key-000000000000' }, { Authorization: 'Bearer nope' }]) {
      const res = await t.http.get('/v1/admin/levels').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 4001, data: 'Invalid AuthKey' });
    }
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const res = await t.http.get('/v1/admin/levels').set({ Authorization: `Bearer ${KEYS.server}` });
    expect(res.body.code).toBe(200);
  });

  it('keeps Mobile keys out of the catalog views but lets them read leaderboards and stores', async () => {
    for (const p of [
      '/v1/admin/actions',
      '/v1/admin/badges',
      '/v1/admin/triggers',
      '/v1/admin/levels',
      '/v1/admin/ranks',
      '/v1/admin/streaks',
      '/v1/admin/streaks/s-daily-quest',
      '/v1/admin/missions',
      '/v1/admin/missions/m-daily-routine',
      '/v1/admin/currencies',
    ]) {
      const res = await t.http.get(p).set(mobile);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe(4003);
    }
    expect((await t.http.get('/v1/admin/leaderboards').set(mobile)).body.code).toBe(200);
    expect((await t.http.get('/v1/admin/stores').set(mobile)).body.code).toBe(200);
  });

  it("requires a tenant domain from Client keys: 4002 when absent, 4003 when not the key's", async () => {
    const none = await t.http.get('/v1/admin/stores').set({ AuthKey: KEYS.client });
    expect(none.status).toBe(403);
    expect(none.body.code).toBe(4002);
    const wrong = await t.http
      .get('/v1/admin/stores')
      .set({ AuthKey: KEYS.client, 'X-Tenant-Domain': 'evil.example.com' });
    expect(wrong.body.code).toBe(4003);
    expect((await t.http.get('/v1/admin/stores').set(client)).body.code).toBe(200);
    expect(
      (await t.http.get('/v1/admin/stores').set({ AuthKey: KEYS.client, Origin: 'https://play.example.com:8443' })).body
        .code,
    ).toBe(200);
  });

  it('gives a Client key with no tenant domains 4002 without a domain and 4003 with one', async () => {
    expect((await t.http.get('/v1/admin/stores').set({ AuthKey: KEYS.bare })).body.code).toBe(4002);
    expect(
      (await t.http.get('/v1/admin/stores').set({ AuthKey: KEYS.bare, 'X-Tenant-Domain': 'play.example.com' })).body
        .code,
    ).toBe(4003);
  });

  it('keeps Client keys to their operations (4003) and away from nested actions (4004)', async () => {
    expect((await t.http.get('/v1/admin/levels').set(client)).body.code).toBe(4003);
    expect(
      (
        await t.http
          .post('/v1/action/delete')
          .set(client)
          .send({ name: 'login', referenceId: 'x', playerId: '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b' })
      ).body.code,
    ).toBe(4003);
    const nested = await t.http
      .post('/v1/action/process')
      .set(client)
      .send({ name: 'login', referenceId: 'n-1', playerId: '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b', actions: [] });
    expect(nested.status).toBe(403);
    expect(nested.body.code).toBe(4004);
  });

  it('checks the key before the body', async () => {
    const res = await t.http.post('/v1/action/process').set('Content-Type', 'application/json').send('{not json');
    expect(res.body.code).toBe(4001);
  });
});

describe('envelope', () => {
  it('answers 1001 for a body that is not JSON, absent, or not an object', async () => {
    for (const body of ['{not json', '', '[1,2]', '"text"']) {
      const res = await t.http
        .post('/v1/action/process')
        .set(server)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(1001);
      expect(typeof res.body.data).toBe('string');
    }
  });

  it('answers 413 with code 1001 for a body over 64 KiB', async () => {
    const res = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({
        name: 'login',
        referenceId: 'big',
        playerId: '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b',
        padding: 'x'.repeat(70 * 1024),
      });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe(1001);
  });

  it('answers 404 in the envelope for an unknown path, and sets security headers', async () => {
    const res = await t.http.get('/v1/nothing').set(server);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(404);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('GET /v1/admin/players finds registered players by the start of their username, any case, to Server and Auditor keys', async () => {
    const tag = `zq${Date.now().toString(36)}`;
    const names = [`${tag}Ada`, `${tag}adam`, `${tag}Bob`];
    const ids: Record<string, string> = {};
    for (const username of names) {
      ids[username] = randomUUID();
      expect(
        (await t.http.post('/v1/player/create').set(server).send({ playerId: ids[username], username })).body.code,
      ).toBe(200);
    }
    const search = (query: Record<string, string>, key: Record<string, string> = server) =>
      t.http.get('/v1/admin/players').query(query).set(key);
    expect((await search({ username: `${tag.toUpperCase()}AD` })).body).toEqual({
      code: 200,
      data: [
        { playerId: ids[`${tag}Ada`], username: `${tag}Ada` },
        { playerId: ids[`${tag}adam`], username: `${tag}adam` },
      ],
    });
    expect((await search({ username: tag, top: '1' }, auditor)).body.data).toEqual([
      { playerId: ids[`${tag}Ada`], username: `${tag}Ada` },
    ]);
    expect((await search({ username: `${tag}x` })).body).toEqual({ code: 200, data: [] });
    expect((await search({})).body.code).toBe(1001);
    expect((await search({ username: tag, top: '101' })).body.code).toBe(1001);
    expect((await search({ username: tag }, mobile)).body.code).toBe(4003);
  });

  it('GET /v1/admin/players finds names whose next character lies in U+E000-U+FFFF (half- and full-width forms)', async () => {
    const tag = `zw${Date.now().toString(36)}`;
    const found: [string, string][] = [
      [`${tag}\u{ff80}\u{ff9b}\u{ff73}`, `${tag}\u{ff80}`],
      [`${tag}\u{ff34}\u{ff41}\u{ff52}\u{ff4f}`, `${tag}\u{ff34}`],
      [`${tag}abc\u{ff01}def`, `${tag}abc`],
    ];
    for (const [username, typed] of found) {
      const playerId = randomUUID();
      expect((await t.http.post('/v1/player/create').set(server).send({ playerId, username })).body.code).toBe(200);
      expect((await t.http.get('/v1/admin/players').query({ username: typed }).set(server)).body).toEqual({
        code: 200,
        data: [{ playerId, username }],
      });
    }
  });

  it('refuses a username with NUL or another control character, on create and on update', async () => {
    const playerId = randomUUID();
    for (const username of ['a\u0000b', 'tab\there', 'line\nbreak', 'del\u007f', 'c1\u0085']) {
      expect((await t.http.post('/v1/player/create').set(server).send({ playerId, username })).body).toEqual({
        code: 1001,
        data: 'username: must not contain control characters',
      });
    }
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId, username: 'Ada' })).body.code).toBe(
      200,
    );
    expect((await t.http.post('/v1/player/update').set(mobile).send({ playerId, username: 'A\u0000da' })).body).toEqual(
      {
        code: 1001,
        data: 'username: must not contain control characters',
      },
    );
  });

  it('GET /v1/admin/players finds a renamed player by the new username only', async () => {
    const tag = `zr${Date.now().toString(36)}`;
    const playerId = randomUUID();
    expect(
      (
        await t.http
          .post('/v1/player/create')
          .set(server)
          .send({ playerId, username: `${tag}Old` })
      ).body.code,
    ).toBe(200);
    expect(
      (
        await t.http
          .post('/v1/player/update')
          .set(server)
          .send({ playerId, username: `${tag}New` })
      ).body.code,
    ).toBe(200);
    const search = async (username: string) =>
      (await t.http.get('/v1/admin/players').query({ username }).set(server)).body;
    expect(await search(`${tag}new`)).toEqual({ code: 200, data: [{ playerId, username: `${tag}New` }] });
    expect(await search(`${tag}old`)).toEqual({ code: 200, data: [] });
    // An update that leaves the name as it is keeps the player found under it.
    expect(
      (await t.http.post('/v1/player/update').set(server).send({ playerId, timeZone: 'Europe/Paris' })).body.code,
    ).toBe(200);
    expect(await search(`${tag}new`)).toEqual({ code: 200, data: [{ playerId, username: `${tag}New` }] });
  });

  it('GET /v1/auth/key answers the name and tier of an accepted key, and changes nothing', async () => {
    expect((await t.http.get('/v1/auth/key').set(server)).body).toEqual({
      code: 200,
      data: { name: 'backend', tier: 'Server' },
    });
    expect((await t.http.get('/v1/auth/key').set(auditor)).body).toEqual({
      code: 200,
      data: { name: 'books', tier: 'Auditor' },
    });
    expect((await t.http.get('/v1/auth/key').set(client)).body).toEqual({
      code: 200,
      data: { name: 'web', tier: 'Client' },
    });
    expect((await t.http.get('/v1/auth/key')).body.code).toBe(4001);
  });

  it('answers GET / with where things are, without a key', async () => {
    const res = await t.http.get('/');
    expect([res.status, res.body]).toEqual([
      200,
      {
        code: 200,
        data: {
          console: '/console',
          kit: '/kit',
          docs: '/docs',
          openApi: '/openapi.json',
          health: '/health',
          ready: '/health/ready',
          metrics: '/metrics',
        },
      },
    ]);
    for (const path of Object.values(res.body.data as Record<string, string>))
      expect([path, (await t.http.get(path).set(server)).status]).toEqual([path, 200]);
  });

  it('answers 405 with Allow, in the envelope, for a known path asked with another method', async () => {
    const profile = await t.http.get('/v1/player/profile').set(server);
    expect([profile.status, profile.headers.allow, profile.body]).toEqual([
      405,
      'POST',
      { code: 405, data: 'Method not allowed: /v1/player/profile takes POST' },
    ]);
    const standings = await t.http.delete('/v1/admin/leaderboards/weekly');
    expect([standings.status, standings.headers.allow, standings.body.code]).toEqual([405, 'GET, HEAD', 405]);
    const health = await t.http.post('/health');
    expect([health.status, health.headers.allow]).toEqual([405, 'GET, HEAD']);
    // HEAD of a GET path is its GET without the body, not a 405.
    expect((await t.http.head('/health')).status).toBe(200);
  });
});

describe('the jobs queue, for operators', () => {
  it('shows a Pending purchase timeout as delayed until it has run, to Server keys only', async () => {
    const own = await startTestService({
      catalogYaml: `
version: 1
settings: { pendingTimeoutSeconds: 1 }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: hoodie, label: Hoodie, type: Prize }
actions:
  - { identifier: earn, deliverables: [{ deliverable: gold, amount: 10 }] }
stores:
  - uid: shop
    label: Shop
    bundles: [{ uid: shipped, label: Shipped hoodie, cost: 5, costDeliverable: gold, requiresFulfillment: true, contents: [{ deliverable: hoodie, amount: 1 }] }]
`,
    });
    try {
      const jobs = async () => {
        const res = await own.http.get('/v1/admin/jobs').set(server);
        expect(res.status).toBe(200);
        return res.body.data;
      };
      expect(await jobs()).toEqual({ waiting: 0, delayed: 0, running: 0, failed: 0, recentFailures: [] });
      const playerId = '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b';
      expect(
        (await own.http.post('/v1/action/process').set(server).send({ name: 'earn', playerId, referenceId: 'earn-1' }))
          .body.code,
      ).toBe(200);
      const bought = await own.http.post('/v1/store/buy').set(server).send({ playerId, referenceId: 'shipped' });
      expect(bought.body.data.status).toBe('Pending');
      expect(await jobs()).toMatchObject({ delayed: 1, failed: 0 });
      // The timeout leaves `delayed` for `running` when it is due, and `running` once its append is done.
      await eventually(async () => {
        expect(await jobs()).toEqual({ waiting: 0, delayed: 0, running: 0, failed: 0, recentFailures: [] });
      }, 30_000);
      expect((await own.http.get('/v1/admin/jobs').set(mobile)).body.code).toBe(4003);
    } finally {
      await own.close();
    }
  });

  it('POST /v1/admin/jobs/retry puts failed jobs back to run with a fresh set of attempts, for Server keys only', async () => {
    const stores = backing();
    const own = await startTestService({ env: stores.env });
    // Another process on the service's job store, whose jobs of a type of its own fail at their one attempt.
    const config = readRunConfig({ DATA_DIR: own.dataDir, ...stores.env });
    const quiet = { warn: () => undefined, error: () => undefined };
    const other = config.redisUrl
      ? new BullMqJobScheduler({
          connection: config.redisUrl,
          queueName: 'jobs',
          prefix: config.redisPrefix,
          attempts: 1,
          logger: quiet,
        })
      : new SqliteJobScheduler(path.join(config.dataDir, 'jobs.sqlite'), { attempts: 1, logger: quiet });
    try {
      let runs = 0;
      other.handle('flaky-store', async () => {
        runs += 1;
        if (runs === 1) throw new Error('store unavailable');
      });
      await other.start();
      const jobId = `flaky-${randomUUID()}`;
      await other.schedule('flaky-store', jobId, Date.now(), {});
      const jobs = async () => (await own.http.get('/v1/admin/jobs').set(server)).body.data;
      await eventually(
        async () => expect(await jobs()).toMatchObject({ failed: 1, recentFailures: [{ jobId }] }),
        30_000,
      );

      const retry = (body: object, key: { AuthKey: string } = server) =>
        own.http.post('/v1/admin/jobs/retry').set(key).send(body);
      expect((await retry({ jobIds: ['no-such-job'] })).body).toEqual({ code: 200, data: { retried: [] } });
      expect((await retry({}, auditor)).body.code).toBe(4003);
      expect((await retry({}, mobile)).body.code).toBe(4003);
      expect((await retry({ jobIds: 'all' })).body).toMatchObject({ code: 1001 });
      expect((await retry({ jobIds: [jobId] })).body).toEqual({ code: 200, data: { retried: [jobId] } });
      // Run again, and done this time: no failure left.
      await eventually(async () => expect(await jobs()).toMatchObject({ failed: 0, running: 0, waiting: 0 }), 30_000);
      expect(runs).toBe(2);
      // Without a body: every failed job, none left now.
      expect((await own.http.post('/v1/admin/jobs/retry').set(server)).body).toEqual({
        code: 200,
        data: { retried: [] },
      });
    } finally {
      await other.close();
      await own.close();
      await stores.release();
    }
  });
});
