/**
 * Hostile numbers: every amount a request can drive stays within the largest amount the engine
 * holds (docs/api.md, "Amounts"), or the request is refused with 1001 and nothing is appended.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_AMOUNT } from '../../domain/amount';
import { parseKeysFile } from '../../shared/adapters/auth/keys';
import { client, KEYS, server, startTestService, tempDir, writeKeysFile, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { rateLimit: { perSecond: 0 } }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true } }
actions:
  - { identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 1 }] }
  - { identifier: grant, points: 1000, deliverables: [{ deliverable: gold, amount: 1000 }] }
  - { identifier: boosted, deliverables: [{ deliverable: boost, amount: 1 }] }
  - { identifier: buy, actionObjects: [{ label: amount, type: Number }] }
badges:
  - { uid: b-big, label: Big spender, type: Repeatable, conditions: [{ action: buy, challenge: { sum: { field: amount, atLeast: 1000 } } }] }
stores:
  - { uid: shop, label: Shop, bundles: [{ uid: sword, label: Sword, cost: 1, costDeliverable: gold, contents: [{ deliverable: gold, amount: 2 }] }] }
`;

let t: TestService;
const extraKey = 'generous-client-key-0123456789';
beforeAll(async () => {
  const dataDir = tempDir();
  const keysFile = path.join(dataDir, 'more-keys.yaml');
  fs.copyFileSync(writeKeysFile(dataDir), keysFile);
  // A Client key allowed a larger multiplier than its tier's default.
  fs.appendFileSync(
    keysFile,
    `\n  - { name: generous, tier: Client, key: "${extraKey}", tenantDomains: ["play.example.com"], maxMultiplier: 100 }\n`,
  );
  t = await startTestService({ dataDir, catalogYaml: CATALOG, env: { API_KEYS_FILE: keysFile } });
});
afterAll(() => t.close());

const process_ = (body: Record<string, unknown>, headers: Record<string, string> = server) =>
  t.http.post('/v1/action/process').set(headers).send(body);
const profile = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;

/** Sends a request that must be refused: 1001 with the message, and nothing appended. */
async function expectRefused(
  send: () => Promise<{ status: number; body: { code: number; data: unknown } }>,
  message: string | RegExp,
): Promise<void> {
  const head = await t.service.events.headPosition();
  const res = await send();
  expect([res.status, res.body.code]).toEqual([400, 1001]);
  expect(res.body.data).toMatch(message);
  expect(await t.service.events.headPosition()).toBe(head);
}

describe('the request multiplier', () => {
  it("is refused above the key tier's maximum, naming it, and never capped", async () => {
    const playerId = randomUUID();
    expect((await process_({ name: 'earn', referenceId: randomUUID(), playerId })).body.code).toBe(200);
    const before = await profile(playerId);
    await expectRefused(
      () => process_({ name: 'earn', referenceId: randomUUID(), playerId, multiplier: 1e308 }),
      'multiplier: must be at most 1000000 for this key',
    );
    await expectRefused(
      () => process_({ name: 'earn', referenceId: randomUUID(), playerId, multiplier: 2 }, client),
      'multiplier: must be at most 1 for this key',
    );
    await expectRefused(
      () =>
        process_(
          { name: 'earn', referenceId: randomUUID(), playerId, multiplier: 101 },
          { ...client, AuthKey: extraKey },
        ),
      'multiplier: must be at most 100 for this key',
    );
    expect(await profile(playerId)).toEqual(before);

    // At the limit it is taken as sent.
    expect(
      (await process_({ name: 'earn', referenceId: randomUUID(), playerId, multiplier: 1 }, client)).body.data
        .earnedPoints,
    ).toBe(10);
    expect(
      (
        await process_(
          { name: 'earn', referenceId: randomUUID(), playerId, multiplier: 100 },
          { ...client, AuthKey: extraKey },
        )
      ).body.data.earnedPoints,
    ).toBe(1000);
    expect(
      (await process_({ name: 'earn', referenceId: randomUUID(), playerId, multiplier: 1e6 })).body.data.earnedPoints,
    ).toBe(1e7);
  });

  it('of a nested action is checked per action, against the same key', async () => {
    const playerId = randomUUID();
    const res = await process_({
      name: 'earn',
      referenceId: randomUUID(),
      playerId,
      actions: [
        { name: 'earn', referenceId: randomUUID(), playerId, multiplier: 2e6 },
        { name: 'earn', referenceId: randomUUID(), playerId, multiplier: 2 },
      ],
    });
    expect(res.body.data.nested).toEqual([
      { code: 1001, data: 'multiplier: must be at most 1000000 for this key' },
      expect.objectContaining({ earnedPoints: 20 }),
    ]);
  });
});

describe('amounts a decision would take out of range', () => {
  it('points and a balance may reach the maximum; an action past it is refused and appends nothing', async () => {
    const playerId = randomUUID();
    // 1000 points and 1000 gold, times 1,000,000: exactly the largest amount.
    const first = await process_({ name: 'grant', referenceId: randomUUID(), playerId, multiplier: 1e6 });
    expect(first.body.data.earnedPoints).toBe(MAX_AMOUNT);
    const before = await profile(playerId);
    expect(before.points).toBe(MAX_AMOUNT);
    await expectRefused(
      () => process_({ name: 'earn', referenceId: randomUUID(), playerId }),
      "Amount out of range: the player's points would exceed 1,000,000,000, the largest amount the engine holds",
    );
    expect(await profile(playerId)).toEqual(before);
  });

  it('a purchase whose contents would take a balance past the maximum is refused', async () => {
    const playerId = randomUUID();
    expect((await process_({ name: 'grant', referenceId: randomUUID(), playerId, multiplier: 1e6 })).body.code).toBe(
      200,
    );
    await expectRefused(
      () => t.http.post('/v1/store/buy').set(server).send({ playerId, referenceId: 'sword' }),
      "Amount out of range: the player's balance of gold would exceed 1,000,000,000",
    );
  });

  it('a multiplier that would grant more than 1,000 powerups is refused before any is made', async () => {
    const playerId = randomUUID();
    await expectRefused(
      () => process_({ name: 'boosted', referenceId: randomUUID(), playerId, multiplier: 1001 }),
      'Amount out of range: a grant of Boost would make more than 1,000 powerups',
    );
    expect((await process_({ name: 'boosted', referenceId: randomUUID(), playerId, multiplier: 1000 })).body.code).toBe(
      200,
    );
    expect((await t.http.post('/v1/powerup/list').set(server).send({ playerId })).body.data).toHaveLength(1000);
  });

  it('a summed detail outside the range is refused, naming it', async () => {
    const playerId = randomUUID();
    await expectRefused(
      () =>
        process_({ name: 'buy', referenceId: randomUUID(), playerId, details: [{ name: 'amount', value: '1e308' }] }),
      /^details: "amount" is 1e\+308, outside the range of amounts the engine holds/,
    );
    const res = await process_({
      name: 'buy',
      referenceId: randomUUID(),
      playerId,
      details: [{ name: 'amount', value: '1000000000' }],
    });
    expect(res.body.data.badges).toEqual([expect.objectContaining({ uid: 'b-big' })]);
  });
});

describe('the keys file', () => {
  it('takes a maxMultiplier per key, defaults it by tier, and refuses one that is not a positive number within the largest amount', () => {
    const parsed = parseKeysFile(
      `keys:\n  - { name: a, tier: Server, key: "${KEYS.server}" }\n  - { name: b, tier: Mobile, key: "${KEYS.mobile}" }\n  - { name: c, tier: Client, key: "${KEYS.client}", maxMultiplier: 2.5 }\n`,
      'keys.yaml',
    );
    expect(parsed.ok && parsed.keys.map((k) => k.maxMultiplier)).toEqual([1_000_000, 1, 2.5]);
    const refused = parseKeysFile(
      `keys:\n  - { name: a, tier: Server, key: "${KEYS.server}", maxMultiplier: .inf }\n  - { name: b, tier: Client, key: "${KEYS.client}", maxMultiplier: 0 }\n  - { name: c, tier: Client, key: "${KEYS.bare}", maxMultiplier: 2e9 }\n`,
      'keys.yaml',
    );
    expect(refused.ok ? [] : refused.problems).toEqual([
      expect.stringMatching(/^keys\[0\]\.maxMultiplier: /),
      'keys[1].maxMultiplier: must be greater than 0',
      'keys[2].maxMultiplier: must be at most 1000000000',
    ]);
  });
});
