/**
 * Safe retries: a state-changing request sent with an `Idempotency-Key` is done once whatever
 * happens to its answer; a retry with the same key and request gets the first answer again,
 * marked `Idempotent-Replayed: true`.
 */
import { randomUUID } from 'node:crypto';
import { StoreOutcomeUnknownError, StoreUnavailableError } from '../../shared/adapters/event-store/port';
import { ABANDONED_AFTER_MS } from '../../command-api/command';
import { idempotencyKeyOf } from '../../shared/adapters/http/idempotency';
import { idempotencyStream, playerStream } from '../../domain/streams';
import { appendOne } from '../support/append-one';
import { addLatency } from '../support/latency';
import { client, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { pendingTimeoutSeconds: 600 }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize }
  - { uid: box, label: Box, type: Prize, kind: Chest, chest: { drawCount: { min: 1, max: 1 }, pool: [{ reward: gold, amount: { min: 1, max: 9 }, weight: 1 }] } }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, timeoutSeconds: 3600 } }
actions:
  - { identifier: earn, points: 1, deliverables: [{ deliverable: gold, amount: 100 }, { deliverable: box, amount: 2 }, { deliverable: boost, amount: 1 }] }
stores:
  - uid: shop
    label: Shop
    bundles:
      - { uid: b-sword, label: Sword, cost: 60, costDeliverable: gold, initialStock: 50, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-shipped, label: Shipped sword, cost: 10, costDeliverable: gold, requiresFulfillment: true, contents: [{ deliverable: sword, amount: 1 }] }
`;

const OUTCOME_UNKNOWN = {
  code: 1004,
  data: 'The outcome is unknown: retry with the same Idempotency-Key, or read the state first',
};

let t: TestService;
let clock = Date.now();
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => clock });
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

const post = (path: string, body: object, key?: string, headers: Record<string, string> = server) => {
  const req = t.http.post(path).set(headers);
  return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
};
const player = async () => {
  const playerId = randomUUID();
  expect((await post('/v1/action/process', { name: 'earn', referenceId: randomUUID(), playerId })).body.code).toBe(200);
  return playerId;
};
const typesOf = async (playerId: string) =>
  (await t.service.events.readStream(playerStream(playerId))).map((e) => e.type);
const count = async (playerId: string, type: string) => (await typesOf(playerId)).filter((x) => x === type).length;
const gold = async (playerId: string) => {
  const profile = await post('/v1/player/profile', { playerId });
  return profile.body.data.balances.find((b: { deliverableUid: string }) => b.deliverableUid === 'gold')?.amount ?? 0;
};

describe('a retry with the same Idempotency-Key', () => {
  it('after a lost answer: one purchase, and the first answer again (status, body, position), marked replayed', async () => {
    const playerId = await player();
    const key = randomUUID();
    const first = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key);
    expect([retry.status, retry.body]).toEqual([200, first.body]);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['x-position']).toBe(first.headers['x-position']);
    expect(await count(playerId, 'BundlePurchased')).toBe(1);
    expect(await gold(playerId)).toBe(40);
    // The same request without the key is a new purchase: the key is what makes a retry one.
    expect((await post('/v1/store/buy', { playerId, referenceId: 'b-sword' })).body.code).toBe(9001);
  });

  it('whose answer was lost after its append (the connection dropped): 1004 "outcome unknown", and the retry answers what was done', async () => {
    const playerId = await player();
    const key = randomUUID();
    const append = t.service.events.appendToStreams.bind(t.service.events);
    jest.spyOn(t.service.events, 'appendToStreams').mockImplementationOnce(async (appends) => {
      await append(appends);
      throw new StoreOutcomeUnknownError('connection lost after the append');
    });
    const first = await post('/v1/chest/open', { playerId, chestDeliverableUId: 'box' }, key);
    expect([first.status, first.body]).toEqual([503, OUTCOME_UNKNOWN]);
    const retry = await post('/v1/chest/open', { playerId, chestDeliverableUId: 'box' }, key);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const [opened] = (await t.service.events.readStream(playerStream(playerId))).filter(
      (e) => e.type === 'ChestOpened',
    );
    const prize = (opened.data as { prizes: { amount: number }[] }).prizes[0];
    expect(retry.body.data).toMatchObject({ drawCount: 1, prizes: [{ label: 'Gold', amount: prize.amount }] });
    expect(await count(playerId, 'ChestOpened')).toBe(1);
  });

  it('after 1004 "outcome unknown" for a purchase not written: the retry does it, once', async () => {
    const playerId = await player();
    const key = randomUUID();
    jest
      .spyOn(t.service.events, 'appendToStreams')
      .mockRejectedValueOnce(new StoreOutcomeUnknownError('deadline passed, not found written'));
    const first = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key);
    expect([first.status, first.body]).toEqual([503, OUTCOME_UNKNOWN]);
    const retry = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key);
    expect([retry.body.code, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await count(playerId, 'BundlePurchased')).toBe(1);
  });

  it('sent several times at once: one effect, every answer the same', async () => {
    const playerId = await player();
    const key = randomUUID();
    addLatency(t.service.events, 6);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key)),
    );
    jest.restoreAllMocks();
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0].body.code).toBe(200);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(await count(playerId, 'BundlePurchased')).toBe(1);
  });

  it('replays a domain refusal (the retry of a refused purchase is refused the same way), not a 503', async () => {
    const playerId = await player();
    expect((await post('/v1/store/buy', { playerId, referenceId: 'b-sword' })).body.code).toBe(200); // 40 gold left
    const refusedKey = randomUUID();
    const refused = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, refusedKey);
    expect(refused.body.code).toBe(9001);
    await post('/v1/action/process', { name: 'earn', referenceId: randomUUID(), playerId });
    const again = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, refusedKey);
    expect([again.status, again.body, again.headers['idempotent-replayed']]).toEqual([400, refused.body, 'true']);
    expect(await count(playerId, 'BundlePurchased')).toBe(1);

    // A 503 changed nothing and is not recorded: the retry does the request.
    const unavailableKey = randomUUID();
    jest.spyOn(t.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
    expect((await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, unavailableKey)).status).toBe(503);
    const done = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, unavailableKey);
    expect([done.body.code, done.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await count(playerId, 'BundlePurchased')).toBe(2);
  });

  it('refuses another request under the same key with 1003 (HTTP 422), changing nothing', async () => {
    const playerId = await player();
    const key = randomUUID();
    await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, key);
    const before = await typesOf(playerId);
    const other = await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key);
    expect([other.status, other.body]).toEqual([
      422,
      { code: 1003, data: 'Idempotency-Key was already used for a different request' },
    ]);
    const otherPath = await post('/v1/chest/open', { playerId, chestDeliverableUId: 'box' }, key);
    expect(otherPath.body.code).toBe(1003);
    expect(await typesOf(playerId)).toEqual(before);
    // The same body with its keys in another order is the same request.
    expect(
      (await post('/v1/store/buy', { referenceId: 'b-sword', playerId }, key)).headers['idempotent-replayed'],
    ).toBe('true');
  });

  it('is scoped to the API key that sent it', async () => {
    const playerId = await player();
    const key = randomUUID();
    expect(
      (await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key)).headers['idempotent-replayed'],
    ).toBeUndefined();
    expect(
      (await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key, mobile)).headers['idempotent-replayed'],
    ).toBeUndefined();
    expect(await count(playerId, 'BundlePurchased')).toBe(2);
  });

  it('is honoured for the retention period (24 h by default), then the key names a new request', async () => {
    const playerId = await player();
    const key = randomUUID();
    await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key);
    clock += 23 * 3_600_000;
    expect(
      (await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key)).headers['idempotent-replayed'],
    ).toBe('true');
    clock += 2 * 3_600_000;
    const later = await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, key);
    expect([later.body.code, later.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await count(playerId, 'BundlePurchased')).toBe(2);
  });

  it('works on every request that changes state', async () => {
    const playerId = await player();
    const once = async (path: string, body: object, headers: Record<string, string> = server) => {
      const key = randomUUID();
      const first = await post(path, body, key, headers);
      const retry = await post(path, body, key, headers);
      expect([path, retry.status, retry.body, retry.headers['idempotent-replayed']]).toEqual([
        path,
        first.status,
        first.body,
        'true',
      ]);
      return first.body;
    };
    await once('/v1/player/create', { playerId: randomUUID() });
    await once('/v1/player/update', { playerId, timeZone: 'Pacific/Auckland' });
    const { referenceId } = (await once('/v1/action/process', { name: 'earn', referenceId: randomUUID(), playerId }))
      .data;
    await once('/v1/action/delete', { name: 'earn', referenceId, playerId });
    const pending = (await once('/v1/store/buy', { playerId, referenceId: 'b-shipped' }, client)).data.provisionUid;
    await once('/v1/store/complete-transaction', { provisionUid: pending });
    const cancelled = (await post('/v1/store/buy', { playerId, referenceId: 'b-shipped' })).body.data.provisionUid;
    await once('/v1/store/cancel-transaction', { provisionUid: cancelled });
    const bought = (await post('/v1/store/buy', { playerId, referenceId: 'b-sword' })).body.data.provisionUid;
    await once('/v1/store/refund-transaction', { provisionUid: bought });
    await once('/v1/chest/open', { playerId, chestDeliverableUId: 'box' });
    const powerup = (await post('/v1/powerup/list', { playerId })).body.data[0].uid;
    await once('/v1/powerup/activate', { playerId, powerupUId: powerup });
    await once('/v1/powerup/deactivate', { playerId, powerupUId: powerup });
    // Each was done once: one of each move on the player's stream.
    const types = await typesOf(playerId);
    for (const type of [
      'PlayerUpdated',
      'ActionReversed',
      'ProvisionCompleted',
      'ProvisionRefunded',
      'ChestOpened',
      'PowerupActivated',
      'PowerupDeactivated',
    ])
      expect([type, types.filter((x) => x === type).length]).toEqual([type, 1]);
  });

  it('with nested actions: the whole answer is recorded after the last one and replayed', async () => {
    const playerId = await player();
    const key = randomUUID();
    const body = {
      name: 'earn',
      referenceId: randomUUID(),
      playerId,
      actions: [{ name: 'earn', referenceId: randomUUID(), playerId }],
    };
    const first = await post('/v1/action/process', body, key);
    expect(first.body.data.nested).toHaveLength(1);
    const retry = await post('/v1/action/process', body, key);
    expect([retry.body, retry.headers['idempotent-replayed']]).toEqual([first.body, 'true']);
    expect(await count(playerId, 'ActionProcessed')).toBe(3);
  });

  it("with nested actions sent several times at once: the winner's answer, success and nested results, is every answer", async () => {
    const playerId = await player();
    const key = randomUUID();
    const body = {
      name: 'earn',
      referenceId: randomUUID(),
      playerId,
      actions: [
        { name: 'earn', referenceId: randomUUID(), playerId },
        { name: 'earn', referenceId: randomUUID(), playerId: randomUUID() },
      ],
    };
    addLatency(t.service.events, 6);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/v1/action/process', body, key)));
    jest.restoreAllMocks();
    expect(answers.map((a) => a.body.code)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0].body.data.nested.map((n: { code?: number }) => n.code)).toEqual([undefined, undefined]);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await count(playerId, 'ActionProcessed')).toBe(3);
    // The key's record is the winner's answer, not a duplicate's refusal.
    expect((await post('/v1/action/process', body, key)).body).toEqual(answers[0].body);
  });

  it('refuses a different request under the key of a nested request still running, with 1003', async () => {
    const playerId = await player();
    const key = randomUUID();
    const nested = {
      name: 'earn',
      referenceId: randomUUID(),
      playerId,
      actions: [{ name: 'earn', referenceId: randomUUID(), playerId }],
    };
    addLatency(t.service.events, 20);
    const answers = await Promise.all([
      post('/v1/action/process', nested, key),
      post('/v1/action/process', { ...nested, referenceId: randomUUID() }, key),
    ]);
    jest.restoreAllMocks();
    // Whichever took the key first ran; the other changed nothing.
    expect(answers.map((a) => a.body.code).sort((a, b) => a - b)).toEqual([200, 1003]);
    expect(await count(playerId, 'ActionProcessed')).toBe(3);
  });

  it('with nested actions after a first attempt that died mid-way (started, never answered): the retry runs once the start is abandoned', async () => {
    const playerId = await player();
    const key = randomUUID();
    const body = {
      name: 'earn',
      referenceId: randomUUID(),
      playerId,
      actions: [{ name: 'earn', referenceId: randomUUID(), playerId }],
    };
    const id = idempotencyKeyOf(key, 'backend', 'POST', '/v1/action/process', body);
    if (!id.ok || !id.value) throw new Error('a well-formed key');
    const start = {
      keyName: 'backend',
      idempotencyKey: key,
      fingerprint: id.value.fingerprint,
      startedAt: clock - ABANDONED_AFTER_MS - 1,
    };
    await appendOne(
      t.service.events,
      idempotencyStream('backend', key),
      [
        {
          id: randomUUID(),
          type: 'IdempotentRequestStarted',
          data: start,
          metadata: { correlationId: randomUUID(), causationId: randomUUID(), keyName: 'backend', catalogVersion: 1 },
        },
      ],
      'no_stream',
    );
    const retry = await post('/v1/action/process', body, key);
    expect([retry.body.code, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect((await post('/v1/action/process', body, key)).body).toEqual(retry.body);
  });

  it('refuses a body nested deeper than 32 levels with 1001 naming the limit, before the key is fingerprinted', async () => {
    const playerId = await player();
    const deep = JSON.parse(`${'['.repeat(4000)}${']'.repeat(4000)}`);
    for (const [path, body] of [
      ['/v1/action/process', { name: 'earn', referenceId: randomUUID(), playerId, details: deep }],
      ['/v1/store/buy', { playerId, referenceId: 'b-sword', note: deep }],
      ['/v1/chest/open', { playerId, chestDeliverableUid: 'box', extra: deep }],
    ] as const) {
      const res = await post(path, body, randomUUID(), client);
      expect([res.status, res.body]).toEqual([
        400,
        { code: 1001, data: 'Payload nested too deeply: at most 32 levels of arrays and objects' },
      ]);
    }
    // Brackets inside strings are text, not nesting.
    const text = await post(
      '/v1/action/process',
      { name: 'earn', referenceId: `${'['.repeat(100)}`, playerId },
      randomUUID(),
    );
    expect(text.body.code).toBe(200);
  });

  it('answers 1001 for a malformed key, before doing anything', async () => {
    const playerId = await player();
    const res = await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, 'has spaces in it');
    expect([res.status, res.body]).toEqual([
      400,
      { code: 1001, data: 'Idempotency-Key: must be 1 to 255 visible ASCII characters' },
    ]);
    expect((await post('/v1/store/buy', { playerId, referenceId: 'b-sword' }, 'x'.repeat(256))).body.code).toBe(1001);
    expect(await count(playerId, 'BundlePurchased')).toBe(0);
  });
});
