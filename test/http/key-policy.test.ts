/**
 * The key policy (docs/api.md, "Key policy"): how far back an action's `timestamp` and how large
 * its `multiplier` may be, by key. A scriptable app must not fill past days' caps, build a streak
 * in seconds or multiply its own points; the operator's back end imports history at any date.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseKeysFile } from '../../shared/adapters/auth/keys';
import {
  client,
  KEYS,
  mobile,
  server,
  startTestService,
  tempDir,
  writeKeysFile,
  type TestService,
} from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: UTC, rateLimit: { perSecond: 0 } }
actions:
  - { identifier: watch_ad, points: 10, caps: [{ period: Day, times: 3 }] }
`;

const NOW = Date.UTC(2026, 5, 1, 12);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const importerKey = 'importer-client-key-0123456789';
const courierKey = 'courier-mobile-key-0123456789';
let t: TestService;
beforeAll(async () => {
  const dataDir = tempDir();
  const keysFile = path.join(dataDir, 'policy-keys.yaml');
  fs.copyFileSync(writeKeysFile(dataDir), keysFile);
  fs.appendFileSync(
    keysFile,
    [
      '',
      `  - { name: importer, tier: Client, key: "${importerKey}", tenantDomains: ["play.example.com"], maxTimestampAgeSeconds: unlimited, maxMultiplier: 3 }`,
      `  - { name: courier, tier: Mobile, key: "${courierKey}", maxTimestampAgeSeconds: 3600 }`,
      '',
    ].join('\n'),
  );
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW, env: { API_KEYS_FILE: keysFile } });
});
afterAll(() => t.close());

const process_ = (body: Record<string, unknown>, headers: Record<string, string>) =>
  t.http.post('/v1/action/process').set(headers).send(body);
const ad = (playerId: string, extra: Record<string, unknown> = {}) => ({
  name: 'watch_ad',
  referenceId: randomUUID(),
  playerId,
  ...extra,
});

/** Sends a request that must be refused with 1001 and the message, appending nothing. */
async function expectRefused(
  send: () => PromiseLike<{ status: number; body: { code: number; data: unknown } }>,
  message: string,
): Promise<void> {
  const head = await t.service.events.headPosition();
  const res = await send();
  expect([res.status, res.body.code, res.body.data]).toEqual([400, 1001, message]);
  expect(await t.service.events.headPosition()).toBe(head);
}

describe('the key policy', () => {
  it('refuses a Client or Mobile action dated more than 5 minutes back, naming the limit, and takes one within it', async () => {
    const playerId = randomUUID();
    for (const key of [client, mobile]) {
      await expectRefused(
        () => process_(ad(playerId, { timestamp: NOW - 5 * MINUTE - 1 }), key),
        'timestamp: must not be more than 300 seconds in the past for this key',
      );
      expect((await process_(ad(playerId, { timestamp: NOW - 5 * MINUTE }), key)).body.code).toBe(200);
    }
  });

  it('does not let a Client fill past days of a cap by backdating (the 30-day burst of the attack)', async () => {
    const playerId = randomUUID();
    let earned = 0;
    for (let day = 1; day <= 30; day++) {
      for (let n = 0; n < 3; n++) {
        const res = await process_(ad(playerId, { timestamp: NOW - day * DAY }), client);
        expect(res.body.code).toBe(1001);
        if (res.body.code === 200) earned += res.body.data.earnedPoints;
      }
    }
    expect(earned).toBe(0);
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body;
    expect(profile.code).toBe(5003);
  });

  it('refuses a Client or Mobile multiplier above 1, naming the limit', async () => {
    const playerId = randomUUID();
    for (const key of [client, mobile]) {
      await expectRefused(
        () => process_(ad(playerId, { multiplier: 10 }), key),
        'multiplier: must be at most 1 for this key',
      );
      expect((await process_(ad(playerId, { multiplier: 1 }), key)).body.data.earnedPoints).toBe(10);
    }
  });

  it('checks each nested action against the same key, at the time it runs', async () => {
    const playerId = randomUUID();
    const res = await process_(
      {
        ...ad(playerId),
        actions: [ad(playerId, { timestamp: NOW - DAY }), ad(playerId, { multiplier: 2 }), ad(playerId)],
      },
      mobile,
    );
    expect(res.body.code).toBe(200);
    expect(res.body.data.nested).toEqual([
      { code: 1001, data: 'timestamp: must not be more than 300 seconds in the past for this key' },
      { code: 1001, data: 'multiplier: must be at most 1 for this key' },
      expect.objectContaining({ earnedPoints: 10 }),
    ]);
  });

  it('lets a Server key import at any date with a large multiplier', async () => {
    const playerId = randomUUID();
    const res = await process_(ad(playerId, { timestamp: NOW - 3650 * DAY, multiplier: 1000 }), server);
    expect([res.body.code, res.body.data.earnedPoints]).toEqual([200, 10_000]);
  });

  it('takes the limits the keys file sets for a key over its tier defaults', async () => {
    const playerId = randomUUID();
    const importer = { ...client, AuthKey: importerKey };
    expect((await process_(ad(playerId, { timestamp: NOW - 365 * DAY, multiplier: 3 }), importer)).body.code).toBe(200);
    await expectRefused(
      () => process_(ad(playerId, { multiplier: 4 }), importer),
      'multiplier: must be at most 3 for this key',
    );
    const courier = { AuthKey: courierKey };
    expect((await process_(ad(playerId, { timestamp: NOW - 60 * MINUTE }), courier)).body.code).toBe(200);
    await expectRefused(
      () => process_(ad(playerId, { timestamp: NOW - 60 * MINUTE - 1 }), courier),
      'timestamp: must not be more than 3600 seconds in the past for this key',
    );
  });
});

describe('the keys file', () => {
  it('defaults the oldest timestamp by tier, takes a number of seconds or "unlimited", and refuses anything else', () => {
    const parsed = parseKeysFile(
      [
        'keys:',
        `  - { name: a, tier: Server, key: "${KEYS.server}" }`,
        `  - { name: b, tier: Mobile, key: "${KEYS.mobile}" }`,
        `  - { name: c, tier: Client, key: "${KEYS.client}" }`,
        `  - { name: d, tier: Client, key: "${KEYS.bare}", maxTimestampAgeSeconds: 86400 }`,
        `  - { name: e, tier: Mobile, key: "${KEYS.auditor}", maxTimestampAgeSeconds: unlimited }`,
      ].join('\n'),
      'keys.yaml',
    );
    expect(parsed.ok && parsed.keys.map((k) => [k.maxTimestampAgeSeconds, k.maxMultiplier])).toEqual([
      [null, 1_000_000],
      [300, 1],
      [300, 1],
      [86400, 1],
      [null, 1],
    ]);
    const refused = parseKeysFile(
      [
        'keys:',
        `  - { name: a, tier: Client, key: "${KEYS.client}", maxTimestampAgeSeconds: -1 }`,
        `  - { name: b, tier: Client, key: "${KEYS.bare}", maxTimestampAgeSeconds: 1.5 }`,
        `  - { name: c, tier: Client, key: "${KEYS.mobile}", maxTimestampAgeSeconds: forever }`,
      ].join('\n'),
      'keys.yaml',
    );
    expect(refused.ok ? [] : refused.problems).toEqual([
      'keys[0].maxTimestampAgeSeconds: must be at least 0',
      'keys[1].maxTimestampAgeSeconds: must be a whole number of seconds or "unlimited"',
      'keys[2].maxTimestampAgeSeconds: must be a whole number of seconds or "unlimited"',
    ]);
  });
});
