import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { StoreUnavailableError } from '../../shared/adapters/event-store/port';
import { chestStockUid } from '../../domain/rules/chests';
import { CHEST_STOCK, stockStream } from '../../domain/streams';
import { chestHistoryShape, ownedChestShape } from '../../shared/adapters/http/wire-shapes';
import { chestOpenShape } from '../../command-api/open-chest/route';
import { catalogChestShape, chestPreviewShape } from '../../read-api/chests/routes';
import { auditor, client, KEYS, mobile, server, startTestService, type TestService } from '../support/service';

const catalogYaml = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img.example.com/gold.png" }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, imageName: "https://img.example.com/sword.png" }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true } }
  - uid: chest-gold
    label: Gold chest
    type: Prize
    kind: Chest
    imageName: "https://img.example.com/chest.png"
    chest: { drawCount: { min: 2, max: 2 }, pool: [{ reward: gold, amount: { min: 10, max: 10 }, weight: 1 }] }
  - uid: chest-mixed
    label: Mixed chest
    type: Prize
    kind: Chest
    chest:
      drawCount: { min: 1, max: 3 }
      pool:
        - { reward: gold, amount: { min: 10, max: 20 }, weight: 4 }
        - { reward: gems, amount: { min: 0.5, max: 1.5 }, weight: 1 }
        - { reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 500 }
        - { reward: points, amount: { min: 5, max: 5 }, weight: 10 }
        - { reward: boost, amount: { min: 1, max: 1 }, weight: 10 }
  - uid: chest-sword
    label: Sword chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 2 }] }
  - uid: chest-traced
    label: Traced chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 100 }] }
  - uid: chest-rare
    label: Rare chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 1 }] }
  - uid: chest-relic
    label: Relic chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 1 }] }
  - uid: chest-points
    label: Points chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: points, amount: { min: 150, max: 150 }, weight: 1 }] }
  - uid: chest-boost
    label: Boost chest
    type: Prize
    kind: Chest
    chest: { pool: [{ reward: boost, amount: { min: 1, max: 1 }, weight: 1 }] }
  - uid: chest-many
    label: Big chest
    type: Prize
    kind: Chest
    chest: { drawCount: { min: 60, max: 60 }, pool: [{ reward: gold, amount: { min: 1, max: 1 }, weight: 1 }] }
  - uid: chest-tiered
    label: Tiered chest
    type: Prize
    kind: Chest
    chest:
      scalingMode: PlayerLevel
      tiers:
        - { minLevel: 1, maxLevel: 1, drawCount: { min: 1, max: 2 }, pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] }
        - { minLevel: 3, maxLevel: 9, pool: [{ reward: gems, amount: { min: 7, max: 8 }, weight: 3, stock: 10 }, { reward: sword, amount: { min: 1, max: 1 }, weight: 1 }] }
  - uid: chest-ladder
    label: Ladder chest
    type: Prize
    kind: Chest
    chest:
      scalingMode: PlayerLevel
      tiers:
        - { minLevel: 1, maxLevel: 2, drawCount: { min: 1, max: 2 }, pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] }
        - { minLevel: 3, maxLevel: 9, pool: [{ reward: gems, amount: { min: 7, max: 8 }, weight: 3, stock: 10 }, { reward: sword, amount: { min: 1, max: 1 }, weight: 1 }] }
  - uid: chest-custom
    label: Custom chest
    type: Prize
    kind: Chest
    chest:
      scalingMode: Custom
      pool: [{ reward: gold, amount: { min: 10, max: 12 }, weight: 1 }]
      scaling: [{ minLevel: 1, factor: 1 }, { minLevel: 2, factor: 3 }]
  - uid: chest-later
    label: Later chest
    type: Prize
    kind: Chest
    chest: { startDate: 2099-01-01T00:00:00, pool: [{ reward: gold, amount: { min: 1, max: 1 }, weight: 1 }] }
  - uid: chest-off
    label: Retired chest
    type: Prize
    kind: Chest
    isActive: false
    chest: { pool: [{ reward: gold, amount: { min: 1, max: 1 }, weight: 1 }] }
actions:
  - uid: act-chests
    identifier: get-chests
    deliverables:
      - { deliverable: chest-gold, amount: 2 }
      - { deliverable: chest-mixed, amount: 1 }
      - { deliverable: chest-points, amount: 1 }
      - { deliverable: chest-tiered, amount: 2 }
      - { deliverable: chest-custom, amount: 2 }
      - { deliverable: chest-later, amount: 1 }
      - { deliverable: chest-off, amount: 1 }
  - { uid: act-swords, identifier: get-sword-chests, deliverables: [{ deliverable: chest-sword, amount: 3 }, { deliverable: chest-rare, amount: 1 }, { deliverable: chest-relic, amount: 2 }] }
  - { uid: act-traced, identifier: get-traced-chests, deliverables: [{ deliverable: chest-traced, amount: 3 }] }
  - { uid: act-many, identifier: get-big-chests, deliverables: [{ deliverable: chest-many, amount: 2 }, { deliverable: chest-boost, amount: 1 }] }
  - { uid: act-climb, identifier: climb, points: 100 }
  - { uid: act-hello, identifier: hello }
levels:
  - { uid: l1, label: L1, level: 1, target: 0 }
  - { uid: l2, label: L2, level: 2, target: 100 }
  - { uid: l3, label: L3, level: 3, target: 200 }
leaderboards:
  - { uid: lb-all, label: All points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml });
});
afterAll(() => t.close());

let refs = 0;
const act = (playerId: string, name: string) =>
  t.http
    .post('/v1/action/process')
    .set(server)
    .send({ name, playerId, referenceId: `chest-${Date.now()}-${++refs}` });
/** A registered player who has run the given actions. */
const player = async (...actions: string[]) => {
  const playerId = randomUUID();
  for (const name of actions.length ? actions : ['hello']) expect((await act(playerId, name)).body.code).toBe(200);
  return playerId;
};
const post = (path: string, body?: unknown, headers: Record<string, string> = server) => {
  const r = t.http.post(path).set(headers);
  return body === undefined ? r : r.send(body as object);
};
const open = (playerId: string, chestDeliverableUId: string, headers: Record<string, string> = server) =>
  post('/v1/chest/open', { playerId, chestDeliverableUId }, headers);
const list = async (playerId: string) => (await post('/v1/chest/list', { playerId })).body;
const preview = async (body: Record<string, unknown>) => (await post('/v1/chest/preview', body)).body;
/** The documented shape (the route's), strictly: an undocumented field fails. */
const strictly = (shape: z.ZodObject, value: unknown) =>
  expect(shape.strict().safeParse(value).error?.issues).toBeUndefined();
const balanceOf = async (playerId: string, chest: string) =>
  ((await list(playerId)).data as { chestDeliverableUid: string; balance: number }[]).find(
    (c) => c.chestDeliverableUid === chest,
  )?.balance ?? 0;

describe('POST /v1/chest/open', () => {
  it('opens a chest: the Chest open result, one chest consumed, the prizes granted', async () => {
    const playerId = await player('get-chests');
    const res = await open(playerId, 'chest-gold');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      data: {
        openingUid: expect.stringMatching(/^[0-9a-f]{32}$/),
        chestLabel: 'Gold chest',
        scalingMode: 'None',
        playerLevel: 1,
        drawCount: 2,
        prizes: [
          { label: 'Gold', amount: 10, imageName: 'https://img.example.com/gold.png', type: 1 },
          { label: 'Gold', amount: 10, imageName: 'https://img.example.com/gold.png', type: 1 },
        ],
      },
    });
    strictly(chestOpenShape, res.body.data);
    expect(await balanceOf(playerId, 'chest-gold')).toBe(1);
    const profile = (await post('/v1/player/profile', { playerId })).body.data;
    expect(profile.balances).toContainEqual({ deliverableUid: 'gold', label: 'Gold', type: 1, amount: 20 });
  });

  it('rolls within the configured ranges; points and powerups won count where they belong', async () => {
    const playerId = await player('get-chests');
    const { data } = (await open(playerId, 'chest-mixed')).body;
    expect(data.drawCount).toBeGreaterThanOrEqual(1);
    expect(data.drawCount).toBeLessThanOrEqual(3);
    expect(data.prizes).toHaveLength(data.drawCount);
    for (const p of data.prizes) {
      expect(['Gold', 'Gems', 'Sword', 'Points', 'Boost']).toContain(p.label);
      if (p.label === 'Gold') expect(Number.isInteger(p.amount) && p.amount >= 10 && p.amount <= 20).toBe(true);
      if (p.label === 'Points') expect(p).toEqual({ label: 'Points', amount: 5, imageName: null, type: 0 });
    }
    const points = data.prizes.filter((p: { label: string }) => p.label === 'Points').length * 5;
    expect((await post('/v1/player/profile', { playerId })).body.data.points).toBe(points);
    const boosts = data.prizes.filter((p: { label: string }) => p.label === 'Boost').length;
    expect((await post('/v1/powerup/list', { playerId })).body.data).toHaveLength(boosts);
  });

  it('points won reach levels and count on leaderboards like action points', async () => {
    const playerId = await player('get-chests');
    expect((await open(playerId, 'chest-points')).body.data.prizes).toEqual([
      { label: 'Points', amount: 150, imageName: null, type: 0 },
    ]);
    const profile = (await post('/v1/player/profile', { playerId })).body.data;
    expect(profile).toMatchObject({ points: 150, level: { uid: 'l2' } });
    const board = await t.http.get('/v1/admin/leaderboards/lb-all').query({ playerId }).set(server);
    expect(board.body.data[0].player).toMatchObject({ userId: playerId, points: 150 });
  });

  it('a powerup won appears in the powerup list', async () => {
    const playerId = await player('get-big-chests');
    await open(playerId, 'chest-boost');
    expect((await post('/v1/powerup/list', { playerId })).body.data).toMatchObject([
      { prizeLabel: 'Boost', multiplier: 2, isValid: true },
    ]);
  });

  it('limited entries draw down a global stock; 9012 when nothing is left, with nothing consumed', async () => {
    const stock = async () => (await preview({ chestDeliverableUId: 'chest-sword' })).data.contents[0].remainingStock;
    expect(await stock()).toBe(2);
    const first = await player('get-sword-chests');
    const second = await player('get-sword-chests');
    expect((await open(first, 'chest-sword')).body.code).toBe(200);
    expect(await stock()).toBe(1);
    expect((await open(second, 'chest-sword')).body.code).toBe(200);
    expect(await stock()).toBe(0);
    const exhausted = await open(first, 'chest-sword');
    expect(exhausted.status).toBe(400);
    expect(exhausted.body).toEqual({ code: 9012, data: 'Limited prize pool exhausted' });
    expect(await balanceOf(first, 'chest-sword')).toBe(2);
    expect((await post('/v1/chest/history', { playerId: first })).body.data).toHaveLength(1);
  });

  it('never oversells a limited entry to concurrent openings', async () => {
    const players = await Promise.all([1, 2, 3, 4].map(() => player('get-sword-chests')));
    const stockUid = chestStockUid('chest-rare', null, 0);
    const results = await Promise.all(players.map((p) => open(p, 'chest-rare')));
    expect(results.filter((r) => r.body.code === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 9012)).toHaveLength(3);
    const taken = (await t.service.events.readStream(stockStream(CHEST_STOCK, stockUid))).filter(
      (e) => e.type === CHEST_STOCK.taken,
    );
    expect(taken).toHaveLength(1);
  });

  it('PlayerLevel: the tier of the player level; 9013 with nothing consumed when no tier holds it', async () => {
    const playerId = await player('get-chests');
    const low = (await open(playerId, 'chest-tiered')).body.data;
    expect(low).toMatchObject({ scalingMode: 'PlayerLevel', playerLevel: 1 });
    expect(low.prizes.every((p: { label: string; amount: number }) => p.label === 'Gold' && p.amount === 5)).toBe(true);
    await act(playerId, 'climb');
    expect((await open(playerId, 'chest-tiered')).body).toEqual({
      code: 9013,
      data: "No reward tier for the player's level (2)",
    });
    expect(await balanceOf(playerId, 'chest-tiered')).toBe(1);
    await act(playerId, 'climb');
    const high = (await open(playerId, 'chest-tiered')).body.data;
    expect(high).toMatchObject({ playerLevel: 3, drawCount: 1 });
    expect(['Gems', 'Sword']).toContain(high.prizes[0].label);
  });

  it('Custom: amounts scaled by the factor of the player level', async () => {
    const playerId = await player('get-chests');
    const base = (await open(playerId, 'chest-custom')).body.data;
    expect(base).toMatchObject({ scalingMode: 'Custom', playerLevel: 1 });
    expect([10, 11, 12]).toContain(base.prizes[0].amount);
    await act(playerId, 'climb');
    const scaled = (await open(playerId, 'chest-custom')).body.data;
    expect(scaled.playerLevel).toBe(2);
    expect([30, 33, 36]).toContain(scaled.prizes[0].amount);
  });

  it('9010 for an unknown, non-chest, inactive or not yet open chest; 9011 without a balance; 9020 for an unknown player', async () => {
    const playerId = await player('get-chests');
    for (const uid of ['nope', 'gold', 'chest-off', 'chest-later'])
      expect((await open(playerId, uid)).body.code).toBe(9010);
    const poor = await player();
    expect((await open(poor, 'chest-gold')).body).toEqual({ code: 9011, data: 'Player does not own this chest' });
    expect((await open(randomUUID(), 'chest-gold')).body).toEqual({ code: 9020, data: 'Player not found' });
  });

  it('1001 for an absent or non-object body; 1002 for a missing field or a playerId that is not a UUID', async () => {
    expect((await post('/v1/chest/open')).body.code).toBe(1001);
    expect((await post('/v1/chest/open', [1])).body.code).toBe(1001);
    const missing = await post('/v1/chest/open', { playerId: randomUUID() });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 1002, data: expect.stringContaining('chestDeliverableUId') });
    expect((await post('/v1/chest/open', { chestDeliverableUId: 'chest-gold' })).body).toEqual({
      code: 1002,
      data: expect.stringContaining('playerId'),
    });
    expect((await post('/v1/chest/open', { playerId: 'p1', chestDeliverableUId: 'chest-gold' })).body.code).toBe(1002);
  });
});

describe('an opening whose one append fails', () => {
  it('consumes no chest and takes no stock; the retry opens once', async () => {
    const playerId = await player('get-sword-chests');
    const stockUid = chestStockUid('chest-relic', null, 0);
    const head = await t.service.events.headPosition();
    jest.spyOn(t.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
    expect((await open(playerId, 'chest-relic')).status).toBe(503);
    expect(await t.service.events.headPosition()).toBe(head);
    expect((await preview({ chestDeliverableUId: 'chest-relic' })).data.contents[0].remainingStock).toBe(1);
    expect(await balanceOf(playerId, 'chest-relic')).toBe(2);

    expect((await open(playerId, 'chest-relic')).body.code).toBe(200);
    expect(await balanceOf(playerId, 'chest-relic')).toBe(1);
    expect((await preview({ chestDeliverableUId: 'chest-relic' })).data.contents[0].remainingStock).toBe(0);
    expect(await t.service.events.readStream(stockStream(CHEST_STOCK, stockUid))).toHaveLength(1);
  });
});

describe('GET /v1/admin/chests', () => {
  it("lists the catalog's chests in catalog order, inactive ones too, to Server and Auditor keys", async () => {
    const res = await t.http.get('/v1/admin/chests').set(server);
    expect(res.body.code).toBe(200);
    for (const chest of res.body.data) strictly(catalogChestShape, chest);
    expect(res.body.data[0]).toEqual({
      chestDeliverableUid: 'chest-gold',
      label: 'Gold chest',
      imageName: 'https://img.example.com/chest.png',
      scalingMode: 'None',
      isActive: true,
    });
    expect(res.body.data.map((c: { chestDeliverableUid: string }) => c.chestDeliverableUid)).toEqual(
      expect.arrayContaining(['chest-mixed', 'chest-tiered', 'chest-off']),
    );
    expect(
      res.body.data.find((c: { chestDeliverableUid: string }) => c.chestDeliverableUid === 'chest-off'),
    ).toMatchObject({ isActive: false });
    expect((await t.http.get('/v1/admin/chests').set(auditor)).body.data).toEqual(res.body.data);
    expect((await t.http.get('/v1/admin/chests').set(mobile)).body.code).toBe(4003);
  });
});

describe('POST /v1/chest/list', () => {
  it('lists owned chests with a balance above 0, in catalog order; an empty array when none', async () => {
    const playerId = await player('get-chests');
    await open(playerId, 'chest-points');
    const { data } = await list(playerId);
    expect(data.map((c: { chestDeliverableUid: string }) => c.chestDeliverableUid)).toEqual([
      'chest-gold',
      'chest-mixed',
      'chest-tiered',
      'chest-custom',
      'chest-later',
      'chest-off',
    ]);
    expect(data[0]).toEqual({
      chestDeliverableUid: 'chest-gold',
      label: 'Gold chest',
      imageName: 'https://img.example.com/chest.png',
      balance: 2,
      scalingMode: 'None',
      isActive: true,
    });
    expect(data[2]).toMatchObject({ scalingMode: 'PlayerLevel', imageName: null });
    expect(data[5]).toMatchObject({ chestDeliverableUid: 'chest-off', isActive: false });
    for (const chest of data) strictly(ownedChestShape, chest);
    expect(await list(await player())).toEqual({ code: 200, data: [] });
  });

  it('9020 for an unknown player; 1002 for a missing playerId; 1001 without a body', async () => {
    expect(await list(randomUUID())).toEqual({ code: 9020, data: 'Player not found' });
    expect((await post('/v1/chest/list', {})).body.code).toBe(1002);
    expect((await post('/v1/chest/list')).body.code).toBe(1001);
  });
});

describe('POST /v1/chest/preview', () => {
  it('shows the pool without points and powerups; weightPct the chance of one draw over the whole pool, 2 decimals; -1 for unlimited stock', async () => {
    const res = await preview({ chestDeliverableUId: 'chest-mixed' });
    strictly(chestPreviewShape, res.data);
    expect(res).toEqual({
      code: 200,
      data: {
        chestLabel: 'Mixed chest',
        scalingMode: 'None',
        drawCountMin: 1,
        drawCountMax: 3,
        contents: [
          {
            rewardLabel: 'Gold',
            rewardImageName: 'https://img.example.com/gold.png',
            type: 1,
            amountMin: 10,
            amountMax: 20,
            probability: 4,
            weightPct: 15.38,
            limited: false,
            remainingStock: -1,
          },
          {
            rewardLabel: 'Gems',
            rewardImageName: null,
            type: 1,
            amountMin: 0.5,
            amountMax: 1.5,
            probability: 1,
            weightPct: 3.85,
            limited: false,
            remainingStock: -1,
          },
          {
            rewardLabel: 'Sword',
            rewardImageName: 'https://img.example.com/sword.png',
            type: 1,
            amountMin: 1,
            amountMax: 1,
            probability: 1,
            weightPct: 3.85,
            limited: true,
            remainingStock: expect.any(Number),
          },
        ],
      },
    });
  });

  it('needs no ownership nor player; with a playerId shows the tier (PlayerLevel) or scaled amounts (Custom) of that player', async () => {
    const fresh = (await preview({ chestDeliverableUId: 'chest-ladder' })).data;
    expect(fresh).toMatchObject({
      drawCountMin: 1,
      drawCountMax: 2,
      contents: [{ rewardLabel: 'Gold', amountMin: 5, amountMax: 5, weightPct: 100 }],
    });

    const playerId = await player('climb', 'climb'); // level 3, owns no chest
    const tier = (await preview({ chestDeliverableUId: 'chest-ladder', playerId })).data;
    expect(tier).toMatchObject({ scalingMode: 'PlayerLevel', drawCountMin: 1, drawCountMax: 1 });
    expect(
      tier.contents.map((c: { rewardLabel: string; weightPct: number; limited: boolean; remainingStock: number }) => [
        c.rewardLabel,
        c.weightPct,
        c.limited,
        c.remainingStock,
      ]),
    ).toEqual([
      ['Gems', 75, true, 10],
      ['Sword', 25, false, -1],
    ]);

    expect((await preview({ chestDeliverableUId: 'chest-custom' })).data.contents[0]).toMatchObject({
      amountMin: 10,
      amountMax: 12,
    });
    expect((await preview({ chestDeliverableUId: 'chest-custom', playerId })).data.contents[0]).toMatchObject({
      amountMin: 30,
      amountMax: 36,
    });
  });

  it('9013 for a level no tier holds; 9010 for an unknown or inactive chest; 9020 for an unknown player; 1002 for a missing uid', async () => {
    const playerId = await player('climb'); // level 2
    expect((await preview({ chestDeliverableUId: 'chest-tiered', playerId })).code).toBe(9013);
    expect((await preview({ chestDeliverableUId: 'nope' })).code).toBe(9010);
    expect((await preview({ chestDeliverableUId: 'chest-off' })).code).toBe(9010);
    expect((await preview({ chestDeliverableUId: 'chest-gold', playerId: randomUUID() })).code).toBe(9020);
    expect((await preview({ chestDeliverableUId: 'chest-gold', playerId: 'p1' })).code).toBe(1002);
    expect((await preview({ playerId })).code).toBe(1002);
    expect((await post('/v1/chest/preview')).body.code).toBe(1001);
  });
});

describe('the chances a preview shows are what openings draw', () => {
  const oddsCatalog = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize }
  - { uid: relic, label: Relic, type: Prize }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true } }
  - uid: chest-odds
    label: Odds chest
    type: Prize
    kind: Chest
    chest:
      drawCount: { min: 100, max: 100 }
      pool:
        - { reward: gold, amount: { min: 1, max: 1 }, weight: 70 }
        - { reward: gems, amount: { min: 1, max: 1 }, weight: 25 }
        - { reward: sword, amount: { min: 1, max: 1 }, weight: 5, stock: 100000 }
        - { reward: points, amount: { min: 1, max: 1 }, weight: 10 }
        - { reward: boost, amount: { min: 1, max: 1 }, weight: 10 }
  - uid: chest-last-relic
    label: Relic chest
    type: Prize
    kind: Chest
    chest: { drawCount: { min: 100, max: 100 }, pool: [{ reward: relic, amount: { min: 1, max: 1 }, weight: 50, stock: 1 }, { reward: gold, amount: { min: 1, max: 1 }, weight: 50 }] }
actions:
  - { uid: act-odds, identifier: get-odds-chests, deliverables: [{ deliverable: chest-odds, amount: 40 }, { deliverable: chest-last-relic, amount: 1 }] }
`;
  /** mulberry32: a seeded generator, so the draws, and so this test, are the same at every run. */
  const seeded = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  let odds: TestService;
  beforeAll(async () => {
    odds = await startTestService({ catalogYaml: oddsCatalog, random: seeded(34) });
  });
  afterAll(() => odds.close());
  const call = async (path: string, body: object) => (await odds.http.post(path).set(server).send(body)).body;
  const chances = async (chestDeliverableUId: string) =>
    Object.fromEntries(
      (await call('/v1/chest/preview', { chestDeliverableUId })).data.contents.map(
        (c: { rewardLabel: string; weightPct: number }) => [c.rewardLabel, c.weightPct],
      ),
    );

  it('each chance is over the whole pool, points and powerups included: Gold 70 of 120 is 58.33 %, not 70 %', async () => {
    expect(await chances('chest-odds')).toEqual({ Gold: 58.33, Gems: 20.83, Sword: 4.17 });
  });

  it('4000 draws fit the shown chances (chi-square, 3 degrees of freedom, below the 0.1 % critical value 16.27)', async () => {
    const shown = await chances('chest-odds');
    const playerId = randomUUID();
    expect(
      (await call('/v1/action/process', { name: 'get-odds-chests', playerId, referenceId: randomUUID() })).code,
    ).toBe(200);
    const drawn: Record<string, number> = { Gold: 0, Gems: 0, Sword: 0, unlisted: 0 };
    for (let i = 0; i < 40; i++) {
      const { code, data } = await call('/v1/chest/open', { playerId, chestDeliverableUId: 'chest-odds' });
      expect(code).toBe(200);
      for (const { label } of data.prizes as { label: string }[]) drawn[label in drawn ? label : 'unlisted']++;
    }
    const total = Object.values(drawn).reduce((a, b) => a + b, 0);
    expect(total).toBe(4000);
    // What the preview does not list (points, powerups) has the rest of the chance.
    const expectedPct: Record<string, number> = {
      ...shown,
      unlisted: 100 - Object.values(shown as Record<string, number>).reduce((a, b) => a + b, 0),
    };
    const chiSquare = Object.entries(drawn).reduce((sum, [label, n]) => {
      const expected = (total * expectedPct[label]) / 100;
      return sum + (n - expected) ** 2 / expected;
    }, 0);
    expect(chiSquare).toBeLessThan(16.27);
  });

  it('an entry out of stock shows 0 %, and the others share the whole chance', async () => {
    expect(await chances('chest-last-relic')).toEqual({ Relic: 50, Gold: 50 });
    const playerId = randomUUID();
    await call('/v1/action/process', { name: 'get-odds-chests', playerId, referenceId: randomUUID() });
    const { data } = await call('/v1/chest/open', { playerId, chestDeliverableUId: 'chest-last-relic' });
    expect(data.prizes.filter((p: { label: string }) => p.label === 'Relic')).toHaveLength(1);
    expect(await chances('chest-last-relic')).toEqual({ Relic: 0, Gold: 100 });
  });
});

describe('POST /v1/chest/history', () => {
  it('one record per reward, most recent first; top default 100, at most 1000', async () => {
    const playerId = await player('get-chests', 'get-big-chests');
    const before = Date.now();
    await open(playerId, 'chest-many'); // 60 gold records
    await open(playerId, 'chest-gold'); // 2 records
    await open(playerId, 'chest-many');
    const history = async (body: Record<string, unknown> = {}) =>
      (await post('/v1/chest/history', { playerId, ...body })).body;

    const all = (await history({ top: 1000 })).data;
    expect(all).toHaveLength(122);
    expect(all[0]).toEqual({
      openedAt: expect.any(Number),
      chestLabel: 'Big chest',
      rewardLabel: 'Gold',
      rewardImageName: 'https://img.example.com/gold.png',
      type: 1,
      amount: 1,
    });
    expect(all[0].openedAt).toBeGreaterThanOrEqual(before);
    strictly(chestHistoryShape, all[0]);
    expect(all.slice(60, 62).map((r: { chestLabel: string; amount: number }) => [r.chestLabel, r.amount])).toEqual([
      ['Gold chest', 10],
      ['Gold chest', 10],
    ]);
    const stamps = all.map((r: { openedAt: number }) => r.openedAt);
    expect([...stamps].sort((a, b) => b - a)).toEqual(stamps);

    expect((await history()).data).toHaveLength(100);
    expect((await history({ top: 3 })).data).toEqual(all.slice(0, 3));
    expect(await history({ top: 1001 })).toEqual({ code: 1001, data: 'top: must be at most 1000' });
    expect((await history({ top: 0 })).code).toBe(1001);
    expect((await history({ top: 'x' })).code).toBe(1001);
  });

  it('an empty array when none; 9020 for an unknown player; 1002 for a missing playerId', async () => {
    expect((await post('/v1/chest/history', { playerId: await player() })).body).toEqual({ code: 200, data: [] });
    expect((await post('/v1/chest/history', { playerId: randomUUID() })).body.code).toBe(9020);
    expect((await post('/v1/chest/history', { top: 5 })).body.code).toBe(1002);
  });
});

describe('GET /v1/audit/trace of a chest opening', () => {
  const trace = (query: Record<string, string>) => t.http.get('/v1/audit/trace').query(query).set(server);

  it('by the openingUid its answer gave, with the player: the request, its events on every stream, the balances before and after', async () => {
    const playerId = await player('get-traced-chests');
    const opened = await open(playerId, 'chest-traced');
    const { openingUid } = opened.body.data;
    const res = await trace({ openingUid, playerId });
    expect(res.body).toEqual({
      code: 200,
      data: {
        openingUid,
        playerId,
        chestDeliverableUid: 'chest-traced',
        chestLabel: 'Traced chest',
        chains: [
          expect.objectContaining({
            cause: 'ChestOpened',
            correlationId: opened.headers['x-request-id'],
            keyName: 'backend',
            rules: null,
            // The chest taken and the sword granted on the player's stream; the sword's unit taken from its limited pool.
            events: [
              expect.objectContaining({ stream: `player-${playerId}`, type: 'ChestOpened' }),
              expect.objectContaining({
                stream: stockStream(CHEST_STOCK, chestStockUid('chest-traced', null, 0)),
                type: 'ChestStockTaken',
              }),
            ],
            balanceChanges: expect.arrayContaining([
              expect.objectContaining({
                type: 'ChestOpened',
                balance: 'chest-traced',
                before: 3,
                change: -1,
                after: 2,
              }),
              expect.objectContaining({ type: 'ChestOpened', balance: 'sword', before: 0, change: 1, after: 1 }),
            ]),
          }),
        ],
      },
    });
    // Another opening of the same player is a trace of its own.
    const second = (await open(playerId, 'chest-traced')).body.data.openingUid;
    expect((await trace({ openingUid: second, playerId })).body.data.chains[0].balanceChanges).toContainEqual(
      expect.objectContaining({ balance: 'chest-traced', before: 2, after: 1 }),
    );
  });

  it('traces an opening without limited prizes; answers 9010 for an opening the player does not have, 1001 without the player or with another subject, 1002 for a player that is not a UUID', async () => {
    const playerId = await player('get-chests');
    const { openingUid } = (await open(playerId, 'chest-gold')).body.data;
    // No limited prize: the opening is found on the player's stream alone.
    expect((await trace({ openingUid, playerId })).body.data.chains).toEqual([
      expect.objectContaining({ cause: 'ChestOpened', events: [expect.objectContaining({ type: 'ChestOpened' })] }),
    ]);
    expect((await trace({ openingUid, playerId: randomUUID() })).body.code).toBe(9010);
    expect((await trace({ openingUid: 'f'.repeat(32), playerId })).body.code).toBe(9010);
    expect((await trace({ openingUid })).body.code).toBe(1001);
    expect((await trace({ openingUid, playerId, referenceId: 'x' })).body.code).toBe(1001);
    expect((await trace({ referenceId: 'x', playerId })).body.code).toBe(1001);
    expect((await trace({ openingUid, playerId: 'nobody' })).body.code).toBe(1002);
    expect(
      (await trace({ openingUid: openingUid.toUpperCase(), playerId: playerId.toUpperCase() })).body.data.openingUid,
    ).toBe(openingUid);
  });
});

describe('tiers', () => {
  it('Server, Mobile and Client (with its tenant domain) may call every chest endpoint', async () => {
    const playerId = await player('get-chests', 'get-chests');
    for (const headers of [server, mobile, client]) {
      expect((await open(playerId, 'chest-custom', headers)).body.code).toBe(200);
      expect((await post('/v1/chest/list', { playerId }, headers)).body.code).toBe(200);
      expect((await post('/v1/chest/preview', { chestDeliverableUId: 'chest-gold' }, headers)).body.code).toBe(200);
      expect((await post('/v1/chest/history', { playerId }, headers)).body.code).toBe(200);
    }
  });

  it('4002 for a Client key without a tenant domain; 4001 without a valid key', async () => {
    const noTenant = await post('/v1/chest/list', { playerId: randomUUID() }, { AuthKey: KEYS.client });
    expect(noTenant.status).toBe(403);
    expect(noTenant.body.code).toBe(4002);
    const bad = await post(
      '/v1/chest/open',
      { playerId: randomUUID(), chestDeliverableUId: 'chest-gold' },
      { AuthKey: 'nope' },
    );
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe(4001);
  });
});
