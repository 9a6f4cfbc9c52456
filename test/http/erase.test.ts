/**
 * A player's erasure through the real service: crypto-shredding (their key deleted), the read
 * models' documents dropped, and every file under DATA_DIR free of their personal data, also
 * after a restart and after a rebuild.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { server, auditor, mobile, startTestService, tempDir, type TestService } from '../support/service';
import { newSecret, writeWebhooksFile } from '../support/webhook-receiver';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: box, label: Box, type: Prize, kind: Chest, chest: { pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] } }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }, { deliverable: box, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;
const BIN = path.resolve(__dirname, '..', '..', 'bin', 'gamification.js');

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
});
afterAll(() => t.close());

const post = (p: string, body: object, headers: Record<string, string> = server) =>
  t.http.post(p).set(headers).send(body);
const ok = async (p: string, body: object) => {
  const res = await post(p, body);
  expect(res.body).toMatchObject({ code: 200 });
  return res.body.data;
};
const earn = (playerId: string, details?: { name: string; value: string }[], referenceId = randomUUID()) =>
  ok('/v1/action/process', { name: 'earn', playerId, referenceId, ...(details ? { details } : {}) });
const standings = async () =>
  (
    (await t.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data[0].standings as {
      rank: number;
      userId: string;
      username: string;
    }[]
  ).map((s) => [s.rank, s.userId, s.username]);

/** Every file under `dir`, recursively, as bytes. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.isFile() ? [{ file: full, bytes: fs.readFileSync(full) }] : [];
  });
}

/** The files under DATA_DIR holding any of `values` (utf-8 bytes, as grep would find them). */
const holding = (values: string[], dataDir = t.dataDir) =>
  filesUnder(dataDir)
    .filter(({ bytes }) => values.some((v) => bytes.includes(Buffer.from(v))))
    .map(({ file }) => path.basename(file));

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DATA_DIR: t.dataDir, EVENTSTORE_URL: '', MONGO_URL: '', REDIS_URL: '' };
    const child = execFile(process.execPath, [BIN, ...args], { env }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('POST /v1/admin/players/erase', () => {
  it('is appended later than every action the player was given: an action appended while it was decided makes it decide again', async () => {
    const ada = randomUUID();
    await ok('/v1/player/create', { playerId: ada, username: 'Ada' });
    await earn(ada);
    // The erase's first append waits for an action of the player to be appended (as one in flight would be).
    const events = t.service.events;
    const append = events.appendToStreams.bind(events);
    let raced = false;
    const spy = jest.spyOn(events, 'appendToStreams').mockImplementation(async (appends) => {
      if (!raced && appends.some((a) => a.events.some((e) => e.type === 'PlayerErased'))) {
        raced = true;
        const decidedAt = Date.now();
        await earn(ada, [{ name: 'street', value: 'rue' }]);
        // A clock tick after the decision, so that an erasedAt taken then is told apart.
        while (Date.now() <= decidedAt + 1) await new Promise((resolve) => setImmediate(resolve));
      }
      return append(appends);
    });
    try {
      const erased = (await post('/v1/admin/players/erase', { playerId: ada })).body;
      expect([erased.code, raced]).toEqual([200, true]);
      expect(
        (await post('/v1/action/process', { name: 'earn', playerId: ada, referenceId: randomUUID() })).body.code,
      ).toBe(5003);
      const stream = await events.readStream(`player-${ada}`);
      const erasure = stream.findIndex((e) => e.type === 'PlayerErased');
      const actions = stream.filter((e) => e.type === 'ActionProcessed');
      // Both actions before the erasure in the log, and its erasedAt no earlier than either was recorded.
      expect([actions.length, stream.slice(erasure + 1)]).toEqual([2, []]);
      expect(actions.every((e) => e.createdAt <= erased.data.erasedAt)).toBe(true);
      expect((stream[erasure].data as { erasedAt: number }).erasedAt).toBe(erased.data.erasedAt);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers 5003 to a retry of player/create or player/update with its Idempotency-Key once the player is erased', async () => {
    const ada = randomUUID();
    const [createKey, updateKey] = [randomUUID(), randomUUID()];
    const create = () =>
      post('/v1/player/create', { playerId: ada, username: 'Ada' }).set('Idempotency-Key', createKey);
    const update = () =>
      post('/v1/player/update', { playerId: ada, username: 'Ada L.' }).set('Idempotency-Key', updateKey);
    expect([(await create()).body.code, (await update()).body.code]).toEqual([200, 200]);
    // Before the erase the retries answer the first answers.
    expect([(await create()).header['idempotent-replayed'], (await update()).header['idempotent-replayed']]).toEqual([
      'true',
      'true',
    ]);
    expect((await post('/v1/admin/players/erase', { playerId: ada })).body.code).toBe(200);
    for (const retry of [await create(), await update()]) {
      expect(retry.body).toEqual({ code: 5003, data: 'PlayerId does not exist' });
      expect(retry.header['idempotent-replayed']).toBeUndefined();
    }
  });

  it('erases the personal data everywhere, keeps the amounts, re-ranks the boards and refuses the id from then on', async () => {
    const [ada, bob, cy] = [randomUUID(), randomUUID(), randomUUID()];
    const username = `Ada-${randomUUID()}`;
    const detail = `rue-${randomUUID()}`;
    await ok('/v1/player/create', { playerId: ada, username, imageName: `ada-${randomUUID()}.png` });
    const adaRef = randomUUID();
    await earn(ada, [{ name: 'street', value: detail }], adaRef);
    await earn(ada);
    await ok('/v1/player/create', { playerId: bob, username: 'Bob' });
    await earn(bob);
    await earn(bob);
    await ok('/v1/player/create', { playerId: cy, username: 'Cy' });
    await earn(cy);

    const exported = (await t.http.get(`/v1/admin/players/${ada}/export`).set(auditor)).body.data;
    expect(exported.profile.username).toBe(username);
    expect(exported.actions.map((a: { details: unknown }) => a.details)).toEqual([
      [{ name: 'street', value: detail }],
      [],
    ]);
    // Ada and Bob tie at 20 points, the earlier reacher first; Cy third.
    expect(await standings()).toEqual([
      [1, ada, username],
      [1, bob, 'Bob'],
      [3, cy, 'Cy'],
    ]);
    // Plain text never reached the log or the key store.
    expect(holding([username, detail]).filter((f) => !f.startsWith('read-models'))).toEqual([]);

    const key = `erase-${randomUUID()}`;
    const erase = () => post('/v1/admin/players/erase', { playerId: ada }).set('Idempotency-Key', key);
    const first = await erase();
    expect(first.body).toMatchObject({ code: 200, data: { playerId: ada, erasedAt: expect.any(Number) } });
    const answeredAt = Date.now();
    expect((await erase()).body).toEqual(first.body);
    expect((await post('/v1/admin/players/erase', { playerId: ada })).body.code).toBe(5003);
    expect((await post('/v1/admin/players/erase', { playerId: randomUUID() })).body.code).toBe(5003);
    expect((await post('/v1/admin/players/erase', { playerId: bob }, mobile)).body.code).toBe(4003);

    // Within 10 s of the answer, no file under DATA_DIR holds the username or the detail.
    await eventually(() => holding([username, detail]).length === 0, 10_000, 50);
    expect(Date.now() - answeredAt).toBeLessThan(10_000);

    expect(await standings()).toEqual([
      [1, bob, 'Bob'],
      [2, cy, 'Cy'],
    ]);
    const refused = async () => ({
      profile: (await post('/v1/player/profile', { playerId: ada })).body.code,
      export: (await t.http.get(`/v1/admin/players/${ada}/export`).set(server)).body.code,
      process: (await post('/v1/action/process', { name: 'earn', playerId: ada, referenceId: randomUUID() })).body.code,
      create: (await post('/v1/player/create', { playerId: ada, username: 'again' })).body.code,
      chest: (await post('/v1/chest/open', { playerId: ada, chestDeliverableUId: 'box' })).body.code,
    });
    expect(await refused()).toEqual({ profile: 5003, export: 5003, process: 5003, create: 5003, chest: 9020 });
    const feed = (await t.http.get('/v1/feed/events').query({ types: 'PlayerErased' }).set(server)).body.data;
    expect(JSON.stringify(feed)).toContain(ada);
    // The audit trail keeps the history, its personal fields [erased].
    const trail = JSON.stringify([
      (await t.http.get(`/v1/audit/players/${ada}/events`).set(auditor)).body,
      (await t.http.get('/v1/audit/trace').query({ referenceId: adaRef }).set(auditor)).body,
    ]);
    expect(trail).toContain('[erased]');
    expect([trail.includes(username), trail.includes(detail)]).toEqual([false, false]);
    const verify = await post('/v1/audit/verify', {});
    expect(verify.body.data.differences).toEqual([]);

    // After a restart, and after a rebuild of the read models file, still nothing.
    t = await t.restart();
    expect(holding([username, detail])).toEqual([]);
    expect(await refused()).toMatchObject({ profile: 5003, process: 5003 });
    await t.service.close();
    const rebuilt = await cli('rebuild');
    expect([rebuilt.code, rebuilt.stderr]).toEqual([0, '']);
    expect(holding([username, detail])).toEqual([]);
    t = await startTestService({ catalogYaml: CATALOG, dataDir: t.dataDir });
    expect(holding([username, detail])).toEqual([]);
    expect(await standings()).toEqual([
      [1, bob, 'Bob'],
      [2, cy, 'Cy'],
    ]);
    // Two starts, a restart and a rebuild by the CLI: about 30 s on a loaded machine.
  }, 90_000);

  it('leaves nothing of the player in the deliveries waiting for a refusing receiver, which later gets them [erased]', async () => {
    // A receiver that answers 500 until told to take, keeping the bodies it took.
    let taking = false;
    const taken: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (taking) taken.push(body);
        res.writeHead(taking ? 204 : 500).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const dir = tempDir();
    const file = writeWebhooksFile(dir, {
      name: 'crm',
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      secret: newSecret(),
      events: ['PlayerRegistered', 'ActionProcessed'],
    });
    const w = await startTestService({
      catalogYaml: CATALOG,
      dataDir: dir,
      env: { WEBHOOKS_FILE: file, WEBHOOK_RETRY_BASE_MS: '100' },
    });
    try {
      const ada = randomUUID();
      const username = `Ada-${randomUUID()}`;
      const detail = `rue-${randomUUID()}`;
      const send = (p: string, body: object) => w.http.post(p).set(server).send(body);
      expect((await send('/v1/player/create', { playerId: ada, username })).body.code).toBe(200);
      const action = {
        name: 'earn',
        playerId: ada,
        referenceId: randomUUID(),
        details: [{ name: 'street', value: detail }],
      };
      expect((await send('/v1/action/process', action)).body.code).toBe(200);
      // Both deliveries refused at least once: they wait, recorded in the read models.
      const webhook = async () => (await w.http.get('/v1/admin/webhooks').set(auditor)).body.data[0];
      await eventually(async () => (await webhook()).recent.length >= 2, 30_000, 50);

      expect((await send('/v1/admin/players/erase', { playerId: ada })).body.code).toBe(200);
      const answeredAt = Date.now();
      await eventually(() => holding([username, detail], dir).length === 0, 10_000, 50);
      expect(Date.now() - answeredAt).toBeLessThan(10_000);

      // The receiver takes again: it gets the player's events, their personal fields [erased].
      taking = true;
      const types = () => taken.map((b) => (JSON.parse(b) as { type: string }).type);
      await eventually(() => ['PlayerRegistered', 'ActionProcessed'].every((ty) => types().includes(ty)), 60_000, 50);
      const bodies = taken.join('\n');
      expect(bodies).toContain('[erased]');
      expect([bodies.includes(username), bodies.includes(detail)]).toEqual([false, false]);
    } finally {
      await w.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
