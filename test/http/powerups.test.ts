import { randomUUID } from 'node:crypto';
import { powerupShape } from '../../shared/adapters/http/wire-shapes';
import { client, KEYS, mobile, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const catalogYaml = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img.example.com/gold.png" }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - { uid: banner, label: Banner, type: Content }
  - { uid: boost-gold, label: Double gold, type: Prize, kind: Powerup, imageName: "https://img.example.com/boost.png", powerup: { multiplier: 2, maxUseCount: 2, timeoutSeconds: 3600, targetPrizes: [gold] } }
  - { uid: boost-all, label: Triple prizes, type: Prize, kind: Powerup, powerup: { multiplier: 3, neverExpires: true } }
  # Lifetimes count whole seconds from the grant: 3 s leave the test at least 2 s to activate it, however loaded the machine.
  - { uid: boost-short, label: Short boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, timeoutSeconds: 3 } }
actions:
  - { uid: act-gold, identifier: get-boost-gold, deliverables: [{ deliverable: boost-gold, amount: 1 }] }
  - { uid: act-all, identifier: get-boost-all, deliverables: [{ deliverable: boost-all, amount: 1 }] }
  - { uid: act-short, identifier: get-boost-short, deliverables: [{ deliverable: boost-short, amount: 1 }] }
  - { uid: act-play, identifier: play, points: 10, deliverables: [{ deliverable: gold, amount: 5 }, { deliverable: gems, amount: 1 }, { deliverable: banner, amount: 1 }] }
  - { uid: act-hello, identifier: hello }
`;

/** The service clock: real time moved by `offset`, so tests can step past an expiry. */
let offset = 0;
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml, now: () => Date.now() + offset });
});
afterAll(() => t.close());
afterEach(() => {
  offset = 0;
});

let refs = 0;
const act = async (playerId: string, name: string, extra: Record<string, unknown> = {}) => {
  const referenceId = `pu-${Date.now()}-${++refs}`;
  const res = await t.http
    .post('/v1/action/process')
    .set(server)
    .send({ name, playerId, referenceId, ...extra });
  expect(res.body.code).toBe(200);
  return { referenceId, result: res.body.data };
};
const post = (path: string, body?: unknown, headers: Record<string, string> = server) => {
  const r = t.http.post(path).set(headers);
  return body === undefined ? r : r.send(body as object);
};
const list = async (playerId: string, headers: Record<string, string> = server) =>
  (await post('/v1/powerup/list', { playerId }, headers)).body;
const activate = async (playerId: string, powerupUId: string, headers: Record<string, string> = server) =>
  (await post('/v1/powerup/activate', { playerId, powerupUId }, headers)).body;
const deactivate = async (playerId: string, powerupUId: string, headers: Record<string, string> = server) =>
  (await post('/v1/powerup/deactivate', { playerId, powerupUId }, headers)).body;
/** A player owning the powerups the given actions grant; returns the instance uids in grant order. */
const owner = async (...actions: string[]) => {
  const playerId = randomUUID();
  for (const name of actions) await act(playerId, name);
  const uids = ((await list(playerId)).data as { uid: string }[]).map((p) => p.uid);
  return { playerId, uids };
};
const goldOf = (result: { deliverables: { uid: string; amount: number }[] | null }) =>
  result.deliverables?.find((d) => d.uid === 'gold')?.amount;

describe('POST /v1/powerup/list', () => {
  it('lists every owned instance with every documented field (Unix seconds)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { playerId } = await owner('get-boost-gold', 'get-boost-all');
    const after = Math.floor(Date.now() / 1000);
    const { code, data } = await list(playerId);
    expect(code).toBe(200);
    const [gold, all] = data;
    expect(gold).toEqual({
      uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      prizeLabel: 'Double gold',
      prizeImageName: 'https://img.example.com/boost.png',
      multiplier: 2,
      isActive: false,
      isActivated: false,
      isValid: true,
      initialUseCount: 2,
      remainingUseCount: 2,
      powerupMaxUseCount: 2,
      powerupTimeoutSeconds: 3600,
      neverExpires: false,
      activatedAt: null,
      createdAt: expect.any(Number),
      expiresAt: gold.createdAt + 3600,
      remainingSeconds: expect.any(Number),
      targetPrizes: [
        {
          targetPrizeUid: 'gold',
          targetPrizeLabel: 'Gold',
          targetPrizeImageName: 'https://img.example.com/gold.png',
          deliveryMethod: 1,
        },
      ],
    });
    expect(gold.createdAt).toBeGreaterThanOrEqual(before);
    expect(gold.createdAt).toBeLessThanOrEqual(after);
    expect(gold.remainingSeconds).toBeGreaterThanOrEqual(3598);
    expect(gold.remainingSeconds).toBeLessThanOrEqual(3600);
    // Never expires: expiresAt 0, remainingSeconds -1; unlimited uses: remainingUseCount -1; empty targets = every Prize.
    expect(all).toMatchObject({
      prizeLabel: 'Triple prizes',
      prizeImageName: null,
      neverExpires: true,
      expiresAt: 0,
      remainingSeconds: -1,
      initialUseCount: 0,
      remainingUseCount: -1,
      powerupMaxUseCount: 0,
      targetPrizes: [],
      isValid: true,
    });
    expect(all.uid).not.toBe(gold.uid);
    // The documented shape (shared/adapters/http/wire-shapes.ts), strictly: an undocumented field fails.
    for (const p of data) expect(powerupShape.strict().safeParse(p).error?.issues).toBeUndefined();
  });

  it('an empty array when none owned; 9020 for an unknown player; 1002 for a missing or bad playerId; 1001 without a body', async () => {
    const playerId = randomUUID();
    await act(playerId, 'hello');
    expect(await list(playerId)).toEqual({ code: 200, data: [] });
    expect(await list(randomUUID())).toEqual({ code: 9020, data: 'Player not found' });
    expect((await post('/v1/powerup/list', {})).body.code).toBe(1002);
    expect((await post('/v1/powerup/list', { playerId: 'p1' })).body.code).toBe(1002);
    expect((await post('/v1/powerup/list')).body.code).toBe(1001);
  });
});

describe('POST /v1/powerup/activate and /deactivate', () => {
  it('activate answers a text string; the powerup is activated and multiplies its target prizes, one use per action', async () => {
    const { playerId, uids } = await owner('get-boost-gold');
    const res = await post('/v1/powerup/activate', { playerId, powerupUId: uids[0] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, data: `Powerup ${uids[0]} activated` });
    const [activated] = (await list(playerId)).data;
    expect(activated).toMatchObject({
      isActivated: true,
      isActive: true,
      isValid: true,
      activatedAt: expect.any(Number),
    });
    expect(activated.activatedAt).toBeGreaterThanOrEqual(activated.createdAt);

    const { result } = await act(playerId, 'play');
    expect(result.deliverables).toEqual([
      expect.objectContaining({ uid: 'gold', amount: 10 }),
      expect.objectContaining({ uid: 'gems', amount: 1 }),
      expect.objectContaining({ uid: 'banner', amount: 1 }),
    ]);
    expect(result.earnedPoints).toBe(10);
    expect((await list(playerId)).data[0].remainingUseCount).toBe(1);

    // Used up after its second use: no longer valid, no longer applies, cannot be activated again.
    await act(playerId, 'play');
    expect((await list(playerId)).data[0]).toMatchObject({
      remainingUseCount: 0,
      isValid: false,
      isActive: false,
      isActivated: true,
    });
    expect(goldOf((await act(playerId, 'play')).result)).toBe(5);
    expect((await deactivate(playerId, uids[0])).code).toBe(200);
    expect(await activate(playerId, uids[0])).toEqual({ code: 9021, data: 'Powerup is expired or used up' });
  });

  it('several active powerups multiply together and with the request multiplier', async () => {
    const { playerId, uids } = await owner('get-boost-gold', 'get-boost-all');
    for (const uid of uids) expect((await activate(playerId, uid)).code).toBe(200);
    const { result } = await act(playerId, 'play', { multiplier: 2 });
    expect(result.deliverables.map((d: { uid: string; amount: number }) => [d.uid, d.amount])).toEqual([
      ['gold', 60],
      ['gems', 6],
      ['banner', 2],
    ]);
    expect(result.earnedPoints).toBe(20);
  });

  it('deactivate answers a text string; the powerup stops applying', async () => {
    const { playerId, uids } = await owner('get-boost-all');
    await activate(playerId, uids[0]);
    expect(await deactivate(playerId, uids[0])).toEqual({ code: 200, data: `Powerup ${uids[0]} deactivated` });
    expect((await list(playerId)).data[0]).toMatchObject({
      isActivated: false,
      isActive: false,
      activatedAt: null,
      isValid: true,
    });
    expect(goldOf((await act(playerId, 'play')).result)).toBe(5);
  });

  it('an expired powerup is not valid, stops applying and cannot be activated (9021)', async () => {
    const { playerId, uids } = await owner('get-boost-gold', 'get-boost-gold');
    await activate(playerId, uids[0]);
    offset = 3600_000;
    const [expired, idle] = (await list(playerId)).data;
    expect(expired).toMatchObject({ isValid: false, isActive: false, isActivated: true, remainingSeconds: 0 });
    expect(idle).toMatchObject({ isValid: false, remainingSeconds: 0 });
    expect(goldOf((await act(playerId, 'play')).result)).toBe(5);
    expect((await activate(playerId, uids[1])).code).toBe(9021);
  });

  it('reversing an action a powerup multiplied takes back the multiplied amounts and returns the use', async () => {
    const { playerId, uids } = await owner('get-boost-gold');
    await activate(playerId, uids[0]);
    const { referenceId, result } = await act(playerId, 'play');
    expect(goldOf(result)).toBe(10);
    expect((await list(playerId)).data[0].remainingUseCount).toBe(1);
    const reversed = await post('/v1/action/delete', { name: 'play', referenceId, playerId });
    expect(reversed.body).toEqual({ code: 200 });
    expect((await list(playerId)).data[0].remainingUseCount).toBe(2);
    const profile = (await post('/v1/player/profile', { playerId })).body.data;
    expect(profile.balances.find((b: { deliverableUid: string }) => b.deliverableUid === 'gold')).toBeUndefined();
  });

  it('9021 for a missing, not owned or already active powerup; 9023 for a missing, not owned or inactive one', async () => {
    const { playerId, uids } = await owner('get-boost-all');
    const other = await owner('get-boost-all');
    expect(await activate(playerId, 'nope')).toEqual({ code: 9021, data: 'Powerup not found or not owned' });
    expect((await activate(playerId, other.uids[0])).code).toBe(9021);
    expect(await deactivate(playerId, uids[0])).toEqual({ code: 9023, data: 'Powerup is not active' });
    expect((await deactivate(playerId, 'nope')).code).toBe(9023);
    expect((await deactivate(playerId, other.uids[0])).code).toBe(9023);
    await activate(playerId, uids[0]);
    const again = await post('/v1/powerup/activate', { playerId, powerupUId: uids[0] });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: 9021, data: 'Powerup is already active' });
  });

  it('9020 for an unknown player; 1002 for missing fields; 1001 for an absent or non-object body', async () => {
    for (const path of ['/v1/powerup/activate', '/v1/powerup/deactivate']) {
      expect((await post(path, { playerId: randomUUID(), powerupUId: 'x' })).body).toEqual({
        code: 9020,
        data: 'Player not found',
      });
      expect((await post(path, { playerId: randomUUID() })).body).toEqual({
        code: 1002,
        data: expect.stringContaining('powerupUId'),
      });
      expect((await post(path, { powerupUId: 'x' })).body).toEqual({
        code: 1002,
        data: expect.stringContaining('playerId'),
      });
      expect((await post(path, { playerId: 'p1', powerupUId: 'x' })).body.code).toBe(1002);
      expect((await post(path)).body.code).toBe(1001);
      expect((await post(path, 'text')).body.code).toBe(1001);
    }
  });
});

describe('expiry job', () => {
  it('appends PowerupExpired once an activated powerup expires', async () => {
    const { playerId, uids } = await owner('get-boost-short');
    expect((await activate(playerId, uids[0])).code).toBe(200);
    const expiredEvents = async () =>
      (await t.service.events.readStream(`player-${playerId}`)).filter((e) => e.type === 'PowerupExpired');
    await eventually(async () => (await expiredEvents()).length > 0, 20_000, 200);
    const events = await expiredEvents();
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ playerId, powerupUid: uids[0] })]);
    expect(events[0].metadata).toMatchObject({ keyName: 'scheduler', correlationId: `expire-powerup-${uids[0]}` });
    expect((await list(playerId)).data[0]).toMatchObject({ isValid: false, remainingSeconds: 0 });
  });
});

describe('tiers', () => {
  it('Server, Mobile and Client (with its tenant domain) may call every powerup endpoint', async () => {
    const { playerId, uids } = await owner('get-boost-all');
    for (const headers of [server, mobile, client]) {
      expect((await list(playerId, headers)).code).toBe(200);
      expect((await activate(playerId, uids[0], headers)).code).toBe(200);
      expect((await deactivate(playerId, uids[0], headers)).code).toBe(200);
    }
  });

  it('4002 for a Client key without a tenant domain; 4001 without a valid key', async () => {
    const noTenant = await post(
      '/v1/powerup/activate',
      { playerId: randomUUID(), powerupUId: 'x' },
      { AuthKey: KEYS.client },
    );
    expect([noTenant.status, noTenant.body.code]).toEqual([403, 4002]);
    const bad = await post('/v1/powerup/list', { playerId: randomUUID() }, { AuthKey: 'nope' });
    expect([bad.status, bad.body.code]).toEqual([401, 4001]);
  });
});
