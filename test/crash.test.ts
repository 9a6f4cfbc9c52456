/**
 * Crash test (ARCHITECTURE.md "Testing"): the all-in-one service runs in its own process on the
 * embedded store, under a mixed concurrent load, and is killed with SIGKILL mid-load. Restarted on
 * the same data directory, it must hold every acknowledged write exactly once, balances that are
 * the sum of their events, read models equal to a rebuild, no reservation left for good, and
 * limited stock that agrees with the purchases and openings that reached the players.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE_STOCK, CHEST_STOCK, readStock } from '../command-api/limited-stock/stock-stream';
import { stockUnitsOf } from '../command-api/open-chest/decider';
import { PlayerRepository, playerStream } from '../command-api/player/repository';
import { readReference } from '../command-api/references/reference-stream';
import { addAmounts } from '../shared/amount';
import type { RecordedEvent } from '../shared/event-store/port';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import type { Effects } from '../shared/events/common';
import { eventually, killGroup, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, server as serverKey, startTestService, tempDir, writeKeysFile } from './support/service';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: hoodie, label: Hoodie, type: Prize, kind: Item }
  - uid: chest
    label: Chest
    type: Prize
    kind: Chest
    chest:
      drawCount: { min: 1, max: 2 }
      pool:
        - { reward: gold, amount: { min: 1, max: 5 }, weight: 5 }
        - { reward: sword, amount: { min: 1, max: 1 }, weight: 5, stock: 25 }
        - { reward: points, amount: { min: 5, max: 5 }, weight: 2 }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 3, timeoutSeconds: 3600, targetPrizes: [gold] } }
actions:
  - { uid: a-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 40 }, { deliverable: gems, amount: 2 }] }
  - { uid: a-spin, identifier: spin, points: 1, cost: 15, costDeliverable: gold, deliverables: [{ deliverable: gems, amount: 1 }] }
  - { uid: a-gift, identifier: gift, deliverables: [{ deliverable: chest, amount: 1 }, { deliverable: boost, amount: 1 }] }
leaderboards:
  - { uid: lb-points, label: Points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-earners, label: Earners, type: 0, metric: { action: earn }, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
stores:
  - uid: shop
    label: Shop
    startDate: 2020-01-01T00:00:00
    endDate: 2100-01-01T00:00:00
    bundles:
      - { uid: b-sword, label: Sword, cost: 30, costDeliverable: gold, initialStock: 40, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-gems, label: Gem pack, cost: 10, costDeliverable: gold, initialStock: 0, contents: [{ deliverable: gems, amount: 3 }] }
      - { uid: b-hoodie, label: Hoodie, cost: 5, costDeliverable: gems, initialStock: 15, requiresFulfillment: true, contents: [{ deliverable: hoodie, amount: 1 }] }
`;
const LIMITED_BUNDLES: Record<string, number> = { 'b-sword': 40, 'b-hoodie': 15 };
const CHEST_STOCK_UID = 'chest.pool.1';
const CHEST_STOCK_LIMIT = 25;
/** Short, so recovery after the restart does not take 30 s (both runs use it). */
const STALE_MS = 2500;
const PLAYERS = 6;
const WORKERS_PER_PLAYER = 2;
/** Kill-restart cycles; each kill comes between LOAD_MS and 2 * LOAD_MS after its load started. */
const CYCLES = 3;
const LOAD_MS = 700;

type Kind = 'earn' | 'spin' | 'gift' | 'buy' | 'open' | 'reverse' | 'refund' | 'complete' | 'cancel' | 'activate';
/** The player-stream event each kind of write appends when it succeeds. */
const EVENT_OF: Record<Kind, string> = {
  earn: 'ActionProcessed',
  spin: 'ActionProcessed',
  gift: 'ActionProcessed',
  buy: 'BundlePurchased',
  open: 'ChestOpened',
  reverse: 'ActionReversed',
  refund: 'ProvisionRefunded',
  complete: 'ProvisionCompleted',
  cancel: 'ProvisionFailed',
  activate: 'PowerupActivated',
};

interface Sent {
  requestId: string;
  kind: Kind;
  path: string;
  body: Record<string, unknown>;
  playerId: string;
  /** HTTP status, or null when no complete answer came back (the process died). */
  status: number | null;
  code?: number;
  data?: any;
  position?: number;
}
const acknowledged = (s: Sent) => s.status === 200 && s.code === 200;

let requests = 0;
async function send(url: string, log: Sent[] | null, kind: Kind, urlPath: string, body: Record<string, unknown>, playerId = body.playerId as string): Promise<Sent> {
  const sent: Sent = { requestId: `crash-${++requests}`, kind, path: urlPath, body, playerId, status: null };
  log?.push(sent);
  try {
    const res = await fetch(url + urlPath, {
      method: 'POST',
      headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json', 'X-Request-Id': sent.requestId },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { code: number; data?: unknown };
    Object.assign(sent, { status: res.status, code: json.code, data: json.data, position: Number(res.headers.get('X-Position')) || undefined });
  } catch {
    sent.status = null;
  }
  return sent;
}

async function getJson(url: string): Promise<any> {
  const res = await fetch(url, { headers: { AuthKey: KEYS.server } });
  return res.json();
}

/** What a player's workers know from acknowledged answers, to pick meaningful next requests. */
interface PlayerLoad {
  playerId: string;
  actions: { name: string; referenceId: string }[];
  reversing: Set<string>;
  completed: string[];
  pending: string[];
  moved: Set<string>;
  powerupsTried: Set<string>;
}

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

async function oneRequest(url: string, log: Sent[], p: PlayerLoad): Promise<Sent> {
  const roll = Math.random();
  const process_ = (name: string) => send(url, log, name as Kind, '/v1/action/process', { name, playerId: p.playerId, referenceId: `${name}-${randomUUID()}` });
  if (roll < 0.22 || p.actions.length < 3) return process_('earn');
  if (roll < 0.32) return process_('spin');
  if (roll < 0.45) return process_('gift');
  if (roll < 0.6) return send(url, log, 'buy', '/v1/store/buy', { playerId: p.playerId, referenceId: pick(['b-sword', 'b-gems', 'b-hoodie', 'b-hoodie'])! });
  if (roll < 0.72) return send(url, log, 'open', '/v1/chest/open', { playerId: p.playerId, chestDeliverableUId: 'chest' });
  if (roll < 0.78) {
    const action = pick(p.actions.filter((a) => !p.reversing.has(a.referenceId)));
    if (action) {
      p.reversing.add(action.referenceId);
      return send(url, log, 'reverse', '/v1/action/delete', { name: action.name, playerId: p.playerId, referenceId: action.referenceId });
    }
  }
  if (roll < 0.84) {
    const provisionUid = pick(p.completed.filter((uid) => !p.moved.has(uid)));
    if (provisionUid) {
      p.moved.add(provisionUid);
      return send(url, log, 'refund', '/v1/store/refund-transaction', { provisionUid }, p.playerId);
    }
  }
  if (roll < 0.92) {
    const provisionUid = pick(p.pending.filter((uid) => !p.moved.has(uid)));
    if (provisionUid) {
      p.moved.add(provisionUid);
      const kind = Math.random() < 0.7 ? 'complete' : 'cancel';
      return send(url, log, kind, `/v1/store/${kind}-transaction`, { provisionUid }, p.playerId);
    }
  }
  const listed = await fetch(`${url}/v1/powerup/list`, { method: 'POST', headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' }, body: JSON.stringify({ playerId: p.playerId }) })
    .then((r) => r.json() as Promise<{ code: number; data: { uid: string }[] }>)
    .catch(() => null);
  const powerupUId = listed?.code === 200 ? pick(listed.data.map((x) => x.uid).filter((uid) => !p.powerupsTried.has(uid))) : undefined;
  if (powerupUId) {
    p.powerupsTried.add(powerupUId);
    return send(url, log, 'activate', '/v1/powerup/activate', { playerId: p.playerId, powerupUId });
  }
  return process_('earn');
}

function remember(p: PlayerLoad, sent: Sent): void {
  if (!acknowledged(sent)) return;
  if (sent.path === '/v1/action/process') p.actions.push({ name: sent.body.name as string, referenceId: sent.body.referenceId as string });
  if (sent.kind === 'buy') (sent.data.status === 'Pending' ? p.pending : p.completed).push(sent.data.provisionUid);
  if (sent.kind === 'complete') p.completed.push(sent.body.provisionUid as string);
}

/** Sums of `effects` over a player's stream: points and every balance. */
function sumOfEffects(events: RecordedEvent[]): { points: number; balances: Record<string, number> } {
  let points = 0;
  const balances: Record<string, number> = {};
  for (const e of events) {
    const effects = (e.data as { effects?: Effects }).effects;
    if (!effects) continue;
    points = addAmounts(points, effects.points);
    for (const b of effects.balances) balances[b.deliverableUid] = addAmounts(balances[b.deliverableUid] ?? 0, b.amount);
  }
  return { points, balances: Object.fromEntries(Object.entries(balances).filter(([, v]) => v !== 0)) };
}

/** The lines a server logged at error level (pino level 50 and above). */
const loggedFaults = (child: ChildServer): string[] => child.output().split('\n').filter((line) => /"level":(5|6)\d/.test(line));

let server: ChildServer | null = null;
let store: SqliteEventStore | null = null;
afterAll(async () => {
  await store?.close();
  if (server) await stopProcess(server.child);
});

it('keeps every acknowledged write exactly once across a SIGKILL under load, and recovers everything left half-done', async () => {
  const dataDir = tempDir('gam-crash-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, CATALOG);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile, STALE_RESERVATION_MS: String(STALE_MS) };
  server = await startServerProcess(env);

  // --- Load, SIGKILL at a random moment while requests are in flight, restart on the same data; several times.
  const log: Sent[] = [];
  const players: PlayerLoad[] = Array.from({ length: PLAYERS }, () => ({ playerId: randomUUID(), actions: [], reversing: new Set(), completed: [], pending: [], moved: new Set(), powerupsTried: new Set() }));
  let killedAt = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const current = server;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      killedAt = Date.now();
      killGroup(current.child, 'SIGKILL');
    }, LOAD_MS + Math.random() * LOAD_MS);
    const worker = async (p: PlayerLoad) => {
      while (!killed) remember(p, await oneRequest(current.url, log, p));
    };
    await Promise.all(players.flatMap((p) => Array.from({ length: WORKERS_PER_PLAYER }, () => worker(p))));
    clearTimeout(timer);
    await stopProcess(current.child);
    expect(current.child.signalCode).toBe('SIGKILL');
    server = await startServerProcess(env);
  }
  const { url } = server;
  const acked = log.filter(acknowledged);
  const unanswered = log.filter((s) => s.status === null);
  expect(acked.length).toBeGreaterThanOrEqual(100);
  // Killed mid-load: requests were in flight when the process died.
  expect(unanswered.length).toBeGreaterThanOrEqual(CYCLES);
  for (const kind of ['earn', 'spin', 'gift', 'buy', 'open', 'reverse', 'activate'] as Kind[]) expect([kind, acked.some((s) => s.kind === kind)]).toEqual([kind, true]);

  store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  const events = store;
  const playerEvents = async () => (await Promise.all(players.map((p) => events.readStream(playerStream(p.playerId))))).flat();

  /** Each request's own event on the player streams (found by its correlation id). */
  const ownEvents = (all: RecordedEvent[], sent: Sent) => all.filter((e) => e.metadata.correlationId === sent.requestId && e.type === EVENT_OF[sent.kind]);
  let all = await playerEvents();
  for (const sent of acked) {
    const own = ownEvents(all, sent);
    expect([sent.requestId, sent.kind, own.length]).toEqual([sent.requestId, sent.kind, 1]);
    // The position the answer gave is that event's.
    expect(own[0].position).toBe(sent.position);
    expect(own[0].streamName).toBe(playerStream(sent.playerId));
  }
  for (const sent of log.filter((s) => !acknowledged(s))) expect(ownEvents(all, sent).length).toBeLessThanOrEqual(1);

  // Reservations left by the kill belong to requests that were never acknowledged.
  const referenceIds = [...new Set((await events.readAll()).filter((e) => e.streamName.startsWith('reference-')).map((e) => e.streamName.slice('reference-'.length)))];
  const ackedRefs = new Set(acked.filter((s) => s.path === '/v1/action/process').map((s) => s.body.referenceId as string));
  const reservedAtRestart: string[] = [];
  for (const referenceId of referenceIds) {
    const reference = await readReference(events, referenceId);
    if (reference.status === 'reserved') reservedAtRestart.push(referenceId);
    if (ackedRefs.has(referenceId)) expect([referenceId, reference.status]).toEqual([referenceId, 'completed']);
  }
  for (const referenceId of reservedAtRestart) expect(ackedRefs.has(referenceId)).toBe(false);

  // --- Once the stale window has passed, retry every unacknowledged request that has an idempotency key.
  await new Promise((r) => setTimeout(r, Math.max(0, killedAt + STALE_MS + 200 - Date.now())));
  const retriable = log.filter((s) => !acknowledged(s) && ['earn', 'spin', 'gift', 'reverse', 'refund', 'complete', 'cancel', 'activate'].includes(s.kind));
  const allowed: Record<string, number[]> = {
    '/v1/action/process': [200, 2601, 9001],
    '/v1/action/delete': [200, 101],
    '/v1/store/refund-transaction': [200, 9010, 9011],
    '/v1/store/complete-transaction': [200, 9002, 9003],
    '/v1/store/cancel-transaction': [200, 9002, 9003],
    '/v1/powerup/activate': [200, 9021],
  };
  for (const sent of retriable) {
    const retry = await send(url, null, sent.kind, sent.path, sent.body, sent.playerId);
    // An unexpected answer brings the server's own account of it (its error log lines) into the failure.
    const expected = allowed[sent.path].includes(retry.code!);
    expect([sent.path, retry.code, expected, expected ? [] : loggedFaults(server!)]).toEqual([sent.path, retry.code, true, []]);
    // Processed at most once: a second retry never applies it again.
    if (sent.path === '/v1/action/process') expect((await send(url, null, sent.kind, sent.path, sent.body)).code).toBe(retry.code === 9001 ? 9001 : 2601);
  }

  all = await playerEvents();
  // No referenceId is left reserved, and none is on a player stream twice.
  for (const referenceId of referenceIds) expect([referenceId, (await readReference(events, referenceId)).status]).not.toEqual([referenceId, 'reserved']);
  const processedRefs = all.filter((e) => e.type === 'ActionProcessed').map((e) => (e.data as { referenceId: string }).referenceId);
  expect(processedRefs.length).toBe(new Set(processedRefs).size);
  const reversedRefs = all.filter((e) => e.type === 'ActionReversed').map((e) => (e.data as { referenceId: string }).referenceId);
  expect(reversedRefs.length).toBe(new Set(reversedRefs).size);
  for (const type of ['ProvisionRefunded', 'ProvisionCompleted', 'ProvisionFailed', 'BundlePurchased']) {
    const uids = all.filter((e) => e.type === type).map((e) => (e.data as { provisionUid: string }).provisionUid);
    expect([type, uids.length]).toEqual([type, new Set(uids).size]);
  }
  for (const sent of acked) expect(ownEvents(all, sent)).toHaveLength(1);

  // --- Every balance is the sum of its events' effects, never negative, and the profile agrees.
  for (const p of players) {
    const expected = sumOfEffects(await events.readStream(playerStream(p.playerId)));
    for (const amount of Object.values(expected.balances)) expect(amount).toBeGreaterThan(0);
    const profile = await send(url, null, 'earn', '/v1/player/profile', { playerId: p.playerId });
    expect(profile.code).toBe(200);
    expect(profile.data.points).toBe(expected.points);
    expect(Object.fromEntries((profile.data.balances as { deliverableUid: string; amount: number }[]).map((b) => [b.deliverableUid, b.amount]))).toEqual(expected.balances);
  }

  // --- After settlement, stock taken equals what the players hold: purchases Pending or Completed, prizes drawn.
  const repository = new PlayerRepository(events);
  await eventually(async () => {
    const states = await Promise.all(players.map(async (p) => (await repository.load(p.playerId)).state));
    for (const [bundleUid, initial] of Object.entries(LIMITED_BUNDLES)) {
      const holding = states.flatMap((s) => [...s.provisions.values()]).filter((x) => x.bundleUid === bundleUid && (x.status === 'Pending' || x.status === 'Completed'));
      const stock = await readStock(events, BUNDLE_STOCK, bundleUid);
      expect([bundleUid, stock.total]).toEqual([bundleUid, holding.length]);
      expect(new Set(stock.held.keys())).toEqual(new Set(holding.map((x) => x.uid)));
      expect(stock.total).toBeLessThanOrEqual(initial);
      const shown = (await getJson(`${url}/v1/admin/stores/shop`)).data[0].storeBundles.find((b: { uid: string }) => b.uid === bundleUid).remainingStock;
      expect([bundleUid, shown]).toEqual([bundleUid, initial - stock.total]);
    }
    const drawn = states.flatMap((s) => [...s.chestOpenings.values()]).reduce((n, o) => n + (stockUnitsOf(o.prizes).get(CHEST_STOCK_UID) ?? 0), 0);
    const chestStock = await readStock(events, CHEST_STOCK, CHEST_STOCK_UID);
    expect(chestStock.total).toBe(drawn);
    expect(chestStock.total).toBeLessThanOrEqual(CHEST_STOCK_LIMIT);
  }, 20_000, 250);

  // --- Read models after the restart equal a rebuild from the log; standings agree with the players' points.
  const verify = await send(url, null, 'earn', '/v1/audit/verify', {});
  expect(verify.code).toBe(200);
  expect(verify.data.differences).toEqual([]);
  const standings = (await getJson(`${url}/v1/admin/leaderboards/lb-points?top=100`)).data[0].standings as { userId: string; points: number }[];
  for (const p of players) {
    const points = sumOfEffects(await events.readStream(playerStream(p.playerId))).points;
    const standing = standings.find((s) => s.userId === p.playerId);
    expect([p.playerId, standing?.points ?? 0]).toEqual([p.playerId, points]);
  }
}, 120_000);

describe('a crash between the player append and the reference record, in process (deterministic)', () => {
  it('a retry of the same request after the stale window answers 2601 and finishes the record', async () => {
    let clock = Date.now();
    const t = await startTestService({ catalogYaml: CATALOG, now: () => clock });
    try {
      const playerId = randomUUID();
      const referenceId = `earn-${randomUUID()}`;
      const append = t.service.deps.players.append.bind(t.service.deps.players);
      // The process "dies" right after the player append: the reference stays reserved.
      jest.spyOn(t.service.deps.players, 'append').mockImplementationOnce(async (...args) => {
        await append(...args);
        throw new Error('killed after the player append');
      });
      const earn = () => t.http.post('/v1/action/process').set(serverKey).send({ name: 'earn', playerId, referenceId });
      expect((await earn()).status).toBe(500);
      expect((await readReference(t.service.events, referenceId)).status).toBe('reserved');
      jest.restoreAllMocks();

      clock += STALE_MS + 30_000;
      expect((await earn()).body.code).toBe(2601);
      expect((await readReference(t.service.events, referenceId)).status).toBe('completed');
      const processed = (await t.service.events.readStream(playerStream(playerId))).filter((e) => e.type === 'ActionProcessed');
      expect(processed).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
