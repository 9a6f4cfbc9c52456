/**
 * The TypeScript client (sdk/) against the real service, embedded and listening on a port: its
 * generated sources match the document the service serves, every operation answers through it, a
 * write whose answer was lost is retried and done once, the service's codes come as
 * GamificationError, and the feed subscription outlives a restart of the service.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { DEMO_CATALOG_FILE } from '../../shared/adapters/config/env';
import {
  createClient,
  GamificationError,
  verifyWebhook,
  WebhookVerificationError,
  type FeedEvent,
  type OperationId,
  type WebhookDelivery,
} from '../../sdk/src/index.ts';
import { retryingFetch } from '../../sdk/src/retry.ts';
import { KEYS, startTestService, tempDir, type TestService } from '../support/service';
import { eventually } from '../support/process';
import { newSecret } from '../support/webhook-receiver';

let t: TestService;
let receiver: Server;
const secret = newSecret();
/** What the receiver took: deliveries verified with the SDK's verifyWebhook, and the refused. */
const received: { verified: WebhookDelivery[]; refused: number } = { verified: [], refused: 0 };
let baseUrl: string;
let port: number;
let listening: Server;

/** A webhook the service sends to, so that the webhook operations have one to show and redeliver. */
function writeWebhooksFile(dir: string, url: string): string {
  const file = path.join(dir, 'webhooks.yaml');
  fs.writeFileSync(
    file,
    ['webhooks:', `  - { name: crm, url: "${url}", secret: "${secret}", events: [PlayerRegistered] }`].join('\n'),
  );
  return file;
}

/** A webhook receiver as a client system writes one with the SDK. */
async function startReceiver(): Promise<string> {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        received.verified.push(verifyWebhook(secret, req.headers, Buffer.concat(chunks).toString('utf8')));
        res.writeHead(204).end();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        received.refused++;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const dir = tempDir();
  t = await startTestService({ dataDir: dir, env: { WEBHOOKS_FILE: writeWebhooksFile(dir, await startReceiver()) } });
  listening = await t.service.listen(0);
  port = (listening.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const server = () => createClient({ baseUrl, key: KEYS.server });

describe('the generated sources', () => {
  it('are what openapi-typescript makes of the document the service serves (npm run generate in sdk/ when not)', async () => {
    const sdk = path.join(__dirname, '../../sdk');
    const into = tempDir();
    // openapi-typescript needs Node's require of ES modules, which jest's modules lack: it runs in a process of its own.
    // Not execFileSync: the service answering its request runs in this process.
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/generate.ts', `${baseUrl}/openapi.json`, into],
      {
        cwd: sdk,
      },
    );
    const checkedIn = path.join(sdk, 'src/generated');
    expect(fs.readdirSync(into).sort()).toEqual(fs.readdirSync(checkedIn).sort());
    for (const file of fs.readdirSync(into))
      expect(fs.readFileSync(path.join(checkedIn, file), 'utf8')).toBe(fs.readFileSync(path.join(into, file), 'utf8'));
  });
});

describe('every operation', () => {
  it('answers through its method, with a typed body or parameters', async () => {
    const c = server();
    const playerId = randomUUID();
    const referenceId = randomUUID();
    const today = new Date().toISOString().slice(0, 10);
    let provisions: string[] = [];
    let powerupUId = '';
    const draft = parse(fs.readFileSync(DEMO_CATALOG_FILE, 'utf8'));
    // Every operation but the live feed (feed.subscribe, below) exactly once: the type says so. In order: later ones use what earlier ones made.
    const calls: { [K in Exclude<OperationId, 'recompute' | 'recomputeStatus'>]: () => Promise<unknown> } = {
      health: () => c.health(),
      ready: () => c.ready(),
      apiKey: () => c.apiKey(),
      playerToken: () => c.playerToken({ playerId, ttlSeconds: 600 }),
      registerPlayer: () => c.registerPlayer({ playerId }),
      updatePlayer: () => c.updatePlayer({ playerId, username: `ada-${playerId}` }),
      processAction: () => c.processAction({ name: 'login', referenceId, playerId }),
      actionResponse: () => c.actionResponse({ referenceId }),
      adjustPlayer: async () =>
        c.adjustPlayer({
          playerId,
          reason: 'welcome gift',
          deliverables: [
            { deliverable: 'gold', amount: 500 },
            { deliverable: 'gems', amount: 100 },
            { deliverable: 'chest-silver', amount: 1 },
            { deliverable: 'boost-gold', amount: 1 },
          ],
        }),
      buyBundle: async () => {
        const bought = await Promise.all([1, 2].map(() => c.buyBundle({ playerId, referenceId: 'bd-hoodie' })));
        provisions = bought.map((b) => b.provisionUid);
        return bought;
      },
      transactionStatus: () => c.transactionStatus({ provisionUid: provisions[0] }),
      completeTransaction: () => c.completeTransaction({ provisionUid: provisions[0] }),
      cancelTransaction: () => c.cancelTransaction({ provisionUid: provisions[1] }),
      refundTransaction: () => c.refundTransaction({ provisionUid: provisions[0] }),
      transactionHistory: () => c.transactionHistory({ playerId }),
      playerProfile: () => c.playerProfile({ playerId }),
      playerChests: () => c.playerChests({ playerId }),
      previewChest: () => c.previewChest({ chestDeliverableUId: 'chest-silver', playerId }),
      openChest: () => c.openChest({ playerId, chestDeliverableUId: 'chest-silver' }),
      chestHistory: () => c.chestHistory({ playerId }),
      catalogChests: () => c.catalogChests(),
      playerPowerups: async () => {
        const owned = await c.playerPowerups({ playerId });
        powerupUId = owned[0].uid;
        return owned;
      },
      activatePowerup: () => c.activatePowerup({ playerId, powerupUId }),
      deactivatePowerup: () => c.deactivatePowerup({ playerId, powerupUId }),
      playerStreaks: () => c.playerStreaks({ playerId }),
      playerMoments: () => c.playerMoments({ playerId }),
      playerMissions: () => c.playerMissions({ playerId }),
      // The demo catalog has no league: the operations answer 9043 (unknown league), as documented.
      league: () => expect(c.league({ leagueUid: 'lg-none', playerId })).rejects.toMatchObject({ code: 9043 }),
      leagueHistory: () =>
        expect(c.leagueHistory({ leagueUid: 'lg-none', playerId })).rejects.toMatchObject({ code: 9043 }),
      leagues: async () => expect(await c.leagues()).toEqual([]),
      reverseAction: () => c.reverseAction({ name: 'login', referenceId, playerId }),
      exportPlayer: () => c.exportPlayer({ playerId }),
      actions: () => c.actions(),
      action: () => c.action({ actionID: 'act-login' }),
      badges: () => c.badges(),
      badge: () => c.badge({ badgeID: 'b-first-purchase' }),
      triggers: () => c.triggers(),
      trigger: () => c.trigger({ triggerID: 't-risk' }),
      levels: () => c.levels(),
      ranks: () => c.ranks({ isactive: 'true' }),
      leaderboards: () => c.leaderboards(),
      leaderboard: () => c.leaderboard({ leaderboardID: 'lb-all', top: 5, playerId }),
      stores: () => c.stores(),
      store: () => c.store({ storeID: 'st-main' }),
      streaks: () => c.streaks(),
      streak: () => c.streak({ streakID: 's-daily-quest' }),
      missions: () => c.missions(),
      mission: () => c.mission({ missionID: 'm-daily-routine' }),
      currencies: () => c.currencies(),
      segments: () => c.segments(),
      experiments: () => c.experiments(),
      // The demo catalog has no experiment: the call is made, and its refusal comes back typed.
      experimentResults: () =>
        c.experimentResults({ uid: 'exp-none' }).then(
          () => Promise.reject(new Error('an experiment the catalog does not have answered')),
          (error: unknown) => {
            if (!(error instanceof GamificationError) || error.code !== 9042) throw error;
          },
        ),
      catalogInForce: () => c.catalogInForce({}),
      catalogVersions: () => c.catalogVersions(),
      catalogVersion: () => c.catalogVersion({ version: '1' }),
      validateCatalog: () => c.validateCatalog({ catalog: draft }),
      diffCatalog: () => c.diffCatalog({ yaml: fs.readFileSync(DEMO_CATALOG_FILE, 'utf8') }),
      // The same content as the version in force: nothing published, version 1 answered.
      publishCatalog: () => c.publishCatalog({ catalog: draft, expectedVersion: 1, comment: 'unchanged' }),
      revertCatalog: () => c.revertCatalog({ version: 1, expectedVersion: 1, comment: 'the same rules again' }),
      analytics: () => c.analytics({ series: 'actions', from: today, to: today }),
      searchPlayers: () => c.searchPlayers({ username: 'ada' }),
      feedEvents: () => c.feedEvents({ after: '0', limit: '10', types: 'ActionProcessed' }),
      jobs: () => c.jobs(),
      retryFailedJobs: () => c.retryFailedJobs({}),
      webhooks: () => c.webhooks(),
      redeliverWebhook: () => c.redeliverWebhook({ webhook: 'crm', after: 0 }),
      playerEvents: () => c.playerEvents({ playerId }),
      trace: () => c.trace({ referenceId }),
      simulate: () => c.simulate({ catalog: draft }),
      verify: () => c.verify(),
      // Read after verify: the verification it ran.
      verification: () => c.verification(),
      // Read after simulate: the simulation it ran.
      simulation: () => c.simulation(),
      erasePlayer: () => c.erasePlayer({ playerId }),
    };
    const failures: string[] = [];
    for (const [operation, call] of Object.entries(calls)) {
      try {
        await call();
      } catch (error) {
        failures.push(`${operation}: ${String(error)}`);
      }
    }
    // A recompute runs on: its status is read while it does, or after.
    try {
      const { recomputeUid } = await c.recompute({ dryRun: true });
      expect((await c.recomputeStatus({ recomputeUid })).recomputeUid).toBe(recomputeUid);
    } catch (error) {
      failures.push(`recompute: ${String(error)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('answers', () => {
  it('are typed data: a profile has its points', async () => {
    const c = server();
    const playerId = randomUUID();
    await c.processAction({ name: 'login', referenceId: randomUUID(), playerId });
    const profile = await c.playerProfile({ playerId });
    expect(profile.points).toBe(5);
  });

  it("with a Client key and a player's token (playerToken), are that player's own views; another player's is a 4007", async () => {
    const playerId = randomUUID();
    await server().processAction({ name: 'login', referenceId: randomUUID(), playerId });
    const { token } = await server().playerToken({ playerId });
    const web = createClient({ baseUrl, key: KEYS.client, tenantDomain: 'play.example.com', playerToken: token });
    expect((await web.playerProfile({ playerId })).points).toBe(5);
    await expect(web.playerProfile({ playerId: randomUUID() })).rejects.toMatchObject({ code: 4007, status: 403 });
  });

  it('a 9001 (insufficient funds: a spin costs gold a new player lacks) is a GamificationError with code 9001, its message and status', async () => {
    const error = await server()
      .processAction({ name: 'spin', referenceId: randomUUID(), playerId: randomUUID() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GamificationError);
    expect(error).toMatchObject({ name: 'GamificationError', code: 9001, status: 400 });
    expect((error as GamificationError).message).toMatch(/^Insufficient funds/);
    expect((error as GamificationError).requestId).toBeTruthy();
  });

  it('no service there is a GamificationError with code 0, after the retries', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nowhere = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const c = createClient({ baseUrl: `http://127.0.0.1:${nowhere}`, key: KEYS.server, retry: { attempts: 2 } });
    await expect(c.actions()).rejects.toMatchObject({ name: 'GamificationError', code: 0, status: 0 });
  });
});

describe('verifyWebhook', () => {
  it("takes the service's deliveries, signed, and refuses a body changed on the way", async () => {
    const playerId = randomUUID();
    await server().registerPlayer({ playerId });
    await eventually(async () => {
      expect(received.verified.some((d) => d.type === 'PlayerRegistered' && d.data.playerId === playerId)).toBe(true);
    }, 20_000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,' + Buffer.from('forged').toString('base64'),
    };
    expect(() => verifyWebhook(secret, headers, '{"type":"PlayerRegistered"}')).toThrow(WebhookVerificationError);
  });
});

/** A TCP proxy to the service that, for the first request only, forwards the request but cuts the connection instead of the answer. */
async function proxyLosingFirstAnswer(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const proxy = net.createServer((incoming) => {
    const lose = connections++ === 0;
    const outgoing = net.connect(port, '127.0.0.1');
    incoming.pipe(outgoing);
    outgoing.on('data', (chunk) => (lose ? (incoming.destroy(), outgoing.destroy()) : incoming.write(chunk)));
    outgoing.on('end', () => incoming.end());
    incoming.on('error', () => outgoing.destroy());
    outgoing.on('error', () => incoming.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

describe('a write whose answer is lost', () => {
  it('is retried under the same Idempotency-Key and processed once', async () => {
    const proxy = await proxyLosingFirstAnswer();
    try {
      const c = createClient({ baseUrl: proxy.url, key: KEYS.server });
      const playerId = randomUUID();
      const referenceId = randomUUID();
      const answer = await c.processAction({
        name: 'purchase',
        referenceId,
        playerId,
        details: [{ name: 'amount', value: 10 }],
      });
      expect(proxy.connections()).toBeGreaterThanOrEqual(2);
      expect(answer.referenceId).toBe(referenceId);
      const profile = await server().playerProfile({ playerId });
      expect(profile.points).toBe(answer.earnedPoints);
      const events = await server().playerEvents({ playerId });
      expect(events.filter((e) => e.type === 'ActionProcessed')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('feed.subscribe', () => {
  it('hands over the events of the types asked for, and goes on after the service restarts', async () => {
    const c = server();
    const head = (await c.feedEvents({ limit: '1' })).head;
    const seen: FeedEvent[] = [];
    const drops: unknown[] = [];
    const subscription = c.feed.subscribe(
      { from: head, types: ['ActionProcessed'] },
      (event) => void seen.push(event),
      { maxDelayMs: 200, onDrop: (e) => drops.push(e) },
    );
    const act = (playerId: string) => c.processAction({ name: 'login', referenceId: randomUUID(), playerId });
    const [before, after] = [randomUUID(), randomUUID()];
    try {
      await act(before);
      await eventually(async () => expect(seen.map((e) => e.data.stream)).toEqual([`player-${before}`]), 20_000);
      // The service stops as a crash would stop it: its open connections, the feed's among them, cut.
      const restarting = t.restart();
      listening.closeAllConnections();
      t = await restarting;
      listening = await t.service.listen(port);
      await act(after);
      await eventually(
        async () => expect(seen.map((e) => e.data.stream)).toEqual([`player-${before}`, `player-${after}`]),
        20_000,
      );
      expect(seen.every((e) => e.type === 'ActionProcessed')).toBe(true);
      expect(seen[1].position).toBeGreaterThan(seen[0].position);
      expect(subscription.position).toBe(seen[1].position);
      expect(drops.length).toBeGreaterThan(0);
    } finally {
      subscription.close();
      await subscription.done;
    }
  });

  it('ends with the GamificationError of a request the service refuses (a key that may not read the feed)', async () => {
    const subscription = createClient({ baseUrl, key: KEYS.mobile }).feed.subscribe({}, () => undefined);
    try {
      await expect(subscription.done).rejects.toMatchObject({ code: 4003, status: 403 });
    } finally {
      subscription.close();
    }
  });
});

describe('retries of a 503', () => {
  /** A fetch answering `status` with the envelope `{code, data}` each time, counting the calls. */
  const answering = (status: number, code: number) => {
    const calls: Request[] = [];
    const fetchImpl = (async (request: Request) => {
      calls.push(request);
      return new Response(JSON.stringify({ code, data: 'refused' }), {
        status,
        headers: { 'Content-Type': 'application/json' },
      });
    }) as typeof fetch;
    return { calls, fetchImpl };
  };
  const policy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 };
  const write = (headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1:1/v1/store/buy', { method: 'POST', headers, body: '{}' });

  it('resends a write whose outcome is unknown (1004) only under its Idempotency-Key, and answers the body whole', async () => {
    const withKey = answering(503, 1004);
    await retryingFetch(withKey.fetchImpl, policy)(write({ 'Idempotency-Key': randomUUID() }));
    expect(withKey.calls).toHaveLength(3);

    const withoutKey = answering(503, 1004);
    const answer = await retryingFetch(withoutKey.fetchImpl, policy)(write());
    expect(withoutKey.calls).toHaveLength(1);
    expect([answer.status, await answer.json()]).toEqual([503, { code: 1004, data: 'refused' }]);
  });

  it('resends a write without a key after a 503 that changed nothing', async () => {
    const unavailable = answering(503, 503);
    await retryingFetch(unavailable.fetchImpl, policy)(write());
    expect(unavailable.calls).toHaveLength(3);
  });
});
