/**
 * Crash test: the all-in-one service runs in its own process on the embedded store (its jobs and
 * rate limits on Redis in the "redis" test project), under a mixed
 * concurrent load (actions, reversals, purchases Pending and Completed, completes, cancels,
 * refunds, chest openings, powerup activations), and is killed with SIGKILL mid-load, several
 * times. Restarted on the same data directory, and every unacknowledged request retried at once
 * as a client would, it must hold every acknowledged write exactly once; each action retry is
 * processed or answers 2601 with its result readable at once; balances are the sum of their
 * events; every unit of a limited stock is held by something the players' streams show; every
 * Pending purchase times out; and the read models equal a rebuild.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { addAmounts } from '../domain/amount';
import type { EventStore, RecordedEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { Effects } from '../domain/events/common';
import { PlayerStates } from '../shared/adapters/event-store/player-states';
import { stockUnitsOf } from '../domain/rules/chests';
import {
  BUNDLE_STOCK,
  CHEST_STOCK,
  playerStream,
  stockStream,
  TRIGGER_ACTIVATIONS,
  type LimitedStock,
} from '../domain/streams';
import { DEFAULT_LOCK_MS } from '../shared/adapters/jobs/port';
import { backing } from './support/backing';
import { eventually, killGroup, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

/** Short, so that every Pending purchase left by the load times out during the test. */
const PENDING_TIMEOUT_S = 4;
/**
 * How long a job can take to run after a restart: one the kill cut off mid-run waits for its lock
 * to run out (and, on BullMQ, for two checks for stalled jobs, one lock apart) before it runs again.
 */
const JOB_RECOVERY_S = (3 * DEFAULT_LOCK_MS) / 1000;
const CATALOG = `
version: 1
settings: { pendingTimeoutSeconds: ${PENDING_TIMEOUT_S} }
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
triggers:
  - { uid: t-streak, label: Earning streak, type: Repeatable, limited: true, limit: 30, conditions: [{ action: earn, challenge: { times: 2 } }], deliverables: [{ deliverable: gems, amount: 1 }] }
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
const LIMITED_TRIGGER = 't-streak';
const CHEST_STOCK_UID = 'chest.pool.1';
const CHEST_STOCK_LIMIT = 25;
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
  /** The answer was the recorded one of an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
}
const acknowledged = (s: Sent) => s.status === 200 && s.code === 200;

let requests = 0;
/**
 * Sends a request as a client that retries would: every write names its attempt with an
 * Idempotency-Key (by default its own request id; a retry sends the first attempt's).
 */
async function send(
  url: string,
  log: Sent[] | null,
  kind: Kind,
  urlPath: string,
  body: Record<string, unknown>,
  playerId = body.playerId as string,
  idempotencyKey?: string,
): Promise<Sent> {
  const sent: Sent = { requestId: `crash-${++requests}`, kind, path: urlPath, body, playerId, status: null };
  log?.push(sent);
  try {
    const res = await fetch(url + urlPath, {
      method: 'POST',
      headers: {
        AuthKey: KEYS.server,
        'Content-Type': 'application/json',
        'X-Request-Id': sent.requestId,
        'Idempotency-Key': idempotencyKey ?? sent.requestId,
      },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { code: number; data?: unknown };
    Object.assign(sent, {
      status: res.status,
      code: json.code,
      data: json.data,
      position: Number(res.headers.get('X-Position')) || undefined,
      replayed: res.headers.get('Idempotent-Replayed') === 'true',
    });
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
  const process_ = (name: string) =>
    send(url, log, name as Kind, '/v1/action/process', {
      name,
      playerId: p.playerId,
      referenceId: `${name}-${randomUUID()}`,
    });
  if (roll < 0.22 || p.actions.length < 3) return process_('earn');
  if (roll < 0.32) return process_('spin');
  if (roll < 0.45) return process_('gift');
  if (roll < 0.6)
    return send(url, log, 'buy', '/v1/store/buy', {
      playerId: p.playerId,
      referenceId: pick(['b-sword', 'b-gems', 'b-hoodie', 'b-hoodie'])!,
    });
  if (roll < 0.72)
    return send(url, log, 'open', '/v1/chest/open', { playerId: p.playerId, chestDeliverableUId: 'chest' });
  if (roll < 0.78) {
    const action = pick(p.actions.filter((a) => !p.reversing.has(a.referenceId)));
    if (action) {
      p.reversing.add(action.referenceId);
      return send(url, log, 'reverse', '/v1/action/delete', {
        name: action.name,
        playerId: p.playerId,
        referenceId: action.referenceId,
      });
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
  const listed = await fetch(`${url}/v1/powerup/list`, {
    method: 'POST',
    headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
    body: JSON.stringify({ playerId: p.playerId }),
  })
    .then((r) => r.json() as Promise<{ code: number; data: { uid: string }[] }>)
    .catch(() => null);
  const powerupUId =
    listed?.code === 200 ? pick(listed.data.map((x) => x.uid).filter((uid) => !p.powerupsTried.has(uid))) : undefined;
  if (powerupUId) {
    p.powerupsTried.add(powerupUId);
    return send(url, log, 'activate', '/v1/powerup/activate', { playerId: p.playerId, powerupUId });
  }
  return process_('earn');
}

function remember(p: PlayerLoad, sent: Sent): void {
  if (!acknowledged(sent)) return;
  if (sent.path === '/v1/action/process')
    p.actions.push({ name: sent.body.name as string, referenceId: sent.body.referenceId as string });
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
    for (const b of effects.balances)
      balances[b.deliverableUid] = addAmounts(balances[b.deliverableUid] ?? 0, b.amount);
  }
  return { points, balances: Object.fromEntries(Object.entries(balances).filter(([, v]) => v !== 0)) };
}

/** The lines a server logged at error level (pino level 50 and above). */
const loggedFaults = (child: ChildServer): string[] =>
  child
    .output()
    .split('\n')
    .filter((line) => /"level":(5|6)\d/.test(line));

let server: ChildServer | null = null;
let store: SqliteEventStore | null = null;
const stores = backing();
afterAll(async () => {
  await store?.close();
  if (server) await stopProcess(server.child);
  await stores.release();
});

/** Units of a limited stock each holder holds now: taken and not given back. */
async function unitsByHolder(events: EventStore, kind: LimitedStock, uid: string): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (const e of await events.readStream(stockStream(kind, uid))) {
    const { holder, units } = e.data as { holder: string; units: number };
    const now = (held.get(holder) ?? 0) + (e.type === kind.taken ? units : -units);
    if (now === 0) held.delete(holder);
    else held.set(holder, now);
  }
  return held;
}

it('keeps every acknowledged write exactly once across SIGKILLs under load, and a retry of anything unacknowledged applies it at most once', async () => {
  const dataDir = tempDir('gam-crash-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, CATALOG);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile, ...stores.env };
  server = await startServerProcess(env);

  // --- Load, SIGKILL at a random moment while requests are in flight, restart on the same data; several times.
  const log: Sent[] = [];
  const players: PlayerLoad[] = Array.from({ length: PLAYERS }, () => ({
    playerId: randomUUID(),
    actions: [],
    reversing: new Set(),
    completed: [],
    pending: [],
    moved: new Set(),
    powerupsTried: new Set(),
  }));
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const current = server;
    let killed = false;
    const timer = setTimeout(
      () => {
        killed = true;
        killGroup(current.child, 'SIGKILL');
      },
      LOAD_MS + Math.random() * LOAD_MS,
    );
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
  for (const kind of ['earn', 'spin', 'gift', 'buy', 'open', 'reverse', 'activate'] as Kind[])
    expect([kind, acked.some((s) => s.kind === kind)]).toEqual([kind, true]);

  store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  const events = store;
  const playerEvents = async () =>
    (await Promise.all(players.map((p) => events.readStream(playerStream(p.playerId))))).flat();

  /** Each request's own event on the player streams (found by its correlation id). */
  const ownEvents = (all: RecordedEvent[], sent: Sent) =>
    all.filter((e) => e.metadata.correlationId === sent.requestId && e.type === EVENT_OF[sent.kind]);
  let all = await playerEvents();
  for (const sent of acked) {
    const own = ownEvents(all, sent);
    expect([sent.requestId, sent.kind, own.length]).toEqual([sent.requestId, sent.kind, 1]);
    // The answer's position is that of the last event of the request's one append.
    const appended = (await events.readAll({ fromPosition: own[0].position - 1 })).filter(
      (e) => e.metadata.correlationId === sent.requestId,
    );
    expect(sent.position).toBe(appended[appended.length - 1].position);
    expect(own[0].streamName).toBe(playerStream(sent.playerId));
  }
  for (const sent of log.filter((s) => !acknowledged(s))) expect(ownEvents(all, sent).length).toBeLessThanOrEqual(1);

  // --- At once after the restart (no window to wait out), retry every request that got no answer,
  // with its own Idempotency-Key: done before the kill, the retry answers the first answer; else it is done now.
  const allowed: Record<string, number[]> = {
    '/v1/action/process': [200, 2601, 9001],
    '/v1/action/delete': [200, 101],
    '/v1/store/buy': [200, 9001, 9009],
    '/v1/chest/open': [200, 9011, 9012],
    '/v1/store/refund-transaction': [200, 9003, 9010, 9011],
    '/v1/store/complete-transaction': [200, 9002, 9003],
    '/v1/store/cancel-transaction': [200, 9002, 9003],
    '/v1/powerup/activate': [200, 9021],
  };
  for (const sent of unanswered) {
    const retry = await send(url, null, sent.kind, sent.path, sent.body, sent.playerId, sent.requestId);
    // An unexpected answer brings the server's own account of it (its error log lines) into the failure.
    const expected = allowed[sent.path].includes(retry.code!);
    expect([sent.path, retry.code, expected, expected ? [] : loggedFaults(server)]).toEqual([
      sent.path,
      retry.code,
      true,
      [],
    ]);
    // Done once, by the first attempt (replayed) or by the retry: never by both.
    const done = (await playerEvents()).filter(
      (e) => [sent.requestId, retry.requestId].includes(e.metadata.correlationId) && e.type === EVENT_OF[sent.kind],
    );
    expect([sent.requestId, done.length]).toEqual([sent.requestId, retry.code === 200 ? 1 : 0]);
    if (retry.replayed && retry.code === 200) {
      expect(done[0].metadata.correlationId).toBe(sent.requestId);
      if (sent.kind === 'buy')
        expect(retry.data.provisionUid).toBe((done[0].data as { provisionUid: string }).provisionUid);
    }
    if (sent.path !== '/v1/action/process') continue;
    const referenceId = sent.body.referenceId as string;
    const response = await getJson(`${url}/v1/action/get-response?referenceId=${encodeURIComponent(referenceId)}`);
    if (retry.code === 9001) {
      // Refused now, so never applied before either: nothing to read.
      expect([referenceId, response.code]).toEqual([referenceId, 5001]);
      continue;
    }
    // Processed before the kill (2601) or by this retry: either way its result reads back at once.
    expect([referenceId, response.code, response.data?.referenceId, response.data?.playerId]).toEqual([
      referenceId,
      200,
      referenceId,
      sent.playerId,
    ]);
    // Processed at most once: a second retry (with a new key) never applies it again.
    expect((await send(url, null, sent.kind, sent.path, sent.body, sent.playerId, randomUUID())).code).toBe(2601);
  }

  all = await playerEvents();
  // No referenceId is on a player stream twice, nor any provision moved twice.
  const processedRefs = all
    .filter((e) => e.type === 'ActionProcessed')
    .map((e) => (e.data as { referenceId: string }).referenceId);
  expect(processedRefs.length).toBe(new Set(processedRefs).size);
  const reversedRefs = all
    .filter((e) => e.type === 'ActionReversed')
    .map((e) => (e.data as { referenceId: string }).referenceId);
  expect(reversedRefs.length).toBe(new Set(reversedRefs).size);
  for (const type of ['ProvisionRefunded', 'ProvisionCompleted', 'ProvisionFailed', 'BundlePurchased']) {
    const uids = all.filter((e) => e.type === type).map((e) => (e.data as { provisionUid: string }).provisionUid);
    expect([type, uids.length]).toEqual([type, new Set(uids).size]);
  }
  for (const sent of acked) expect(ownEvents(all, sent)).toHaveLength(1);

  // --- Every Pending purchase times out: none was left without its job by a kill.
  const states = new PlayerStates(events);
  await eventually(
    async () => {
      const pending = (
        await Promise.all(players.map(async (p) => [...(await states.load(p.playerId)).state.provisions.values()]))
      )
        .flat()
        .filter((x) => x.status === 'Pending');
      expect(pending.map((x) => x.uid)).toEqual([]);
    },
    (PENDING_TIMEOUT_S + JOB_RECOVERY_S + 15) * 1000,
    250,
  );

  // --- Every balance is the sum of its events' effects, never negative, and the profile agrees.
  for (const p of players) {
    const expected = sumOfEffects(await events.readStream(playerStream(p.playerId)));
    for (const amount of Object.values(expected.balances)) expect(amount).toBeGreaterThan(0);
    const profile = await send(url, null, 'earn', '/v1/player/profile', { playerId: p.playerId });
    expect(profile.code).toBe(200);
    expect(profile.data.points).toBe(expected.points);
    expect(
      Object.fromEntries(
        (profile.data.balances as { deliverableUid: string; amount: number }[]).map((b) => [
          b.deliverableUid,
          b.amount,
        ]),
      ),
    ).toEqual(expected.balances);
  }

  // --- Every unit of a limited stock is held by what the players' streams show holding it, and by nothing else.
  const finalStates = await Promise.all(players.map(async (p) => (await states.load(p.playerId)).state));
  for (const [bundleUid, initial] of Object.entries(LIMITED_BUNDLES)) {
    const holding = finalStates
      .flatMap((s) => [...s.provisions.values()])
      .filter((x) => x.bundleUid === bundleUid && x.stockTaken);
    const held = await unitsByHolder(events, BUNDLE_STOCK, bundleUid);
    expect([bundleUid, [...held.keys()].sort()]).toEqual([bundleUid, holding.map((x) => x.uid).sort()]);
    expect([...held.values()].every((units) => units === 1)).toBe(true);
    expect(held.size).toBeLessThanOrEqual(initial);
    const shown = (await getJson(`${url}/v1/admin/stores/shop`)).data[0].storeBundles.find(
      (b: { uid: string }) => b.uid === bundleUid,
    ).remainingStock;
    expect([bundleUid, shown]).toEqual([bundleUid, initial - held.size]);
  }
  const openings = finalStates
    .flatMap((s) => [...s.chestOpenings.values()])
    .filter((o) => stockUnitsOf(o.prizes).has(CHEST_STOCK_UID));
  const chestHeld = await unitsByHolder(events, CHEST_STOCK, CHEST_STOCK_UID);
  expect(new Map(openings.map((o) => [o.openingUid, stockUnitsOf(o.prizes).get(CHEST_STOCK_UID)!]))).toEqual(chestHeld);
  expect([...chestHeld.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(CHEST_STOCK_LIMIT);
  const awarded = finalStates.flatMap((s) => s.holdings).filter((h) => h.uid === LIMITED_TRIGGER);
  const activations = await unitsByHolder(events, TRIGGER_ACTIVATIONS, LIMITED_TRIGGER);
  expect(new Map(awarded.map((h) => [h.awardedBy, 1]))).toEqual(activations);
  expect(awarded.length).toBeGreaterThan(0);

  // --- Read models after the restart equal a rebuild from the log; standings agree with the players' points.
  const verify = await send(url, null, 'earn', '/v1/audit/verify', {});
  expect(verify.code).toBe(200);
  expect(verify.data.differences).toEqual([]);
  const standings = (await getJson(`${url}/v1/admin/leaderboards/lb-points?top=100`)).data[0].standings as {
    userId: string;
    points: number;
  }[];
  for (const p of players) {
    const points = sumOfEffects(await events.readStream(playerStream(p.playerId))).points;
    const standing = standings.find((s) => s.userId === p.playerId);
    expect([p.playerId, standing?.points ?? 0]).toEqual([p.playerId, points]);
  }
}, 240_000);

it('times out a Pending purchase acknowledged just before a SIGKILL, once the service is back', async () => {
  const dataDir = tempDir('gam-pending-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(
    catalogFile,
    CATALOG.replace(`pendingTimeoutSeconds: ${PENDING_TIMEOUT_S}`, 'pendingTimeoutSeconds: 2'),
  );
  const pendingStores = backing();
  const env = {
    DATA_DIR: dataDir,
    API_KEYS_FILE: writeKeysFile(dataDir),
    CATALOG_FILE: catalogFile,
    ...pendingStores.env,
  };
  let running = await startServerProcess(env);
  try {
    const playerId = randomUUID();
    // Three earns bring the 6 gems the hoodie's 5 are taken from.
    for (let n = 0; n < 3; n++)
      expect(
        (
          await send(running.url, null, 'earn', '/v1/action/process', {
            name: 'earn',
            playerId,
            referenceId: `earn-${n}-${playerId}`,
          })
        ).code,
      ).toBe(200);
    const gems = async (url: string) =>
      (await send(url, null, 'earn', '/v1/player/profile', { playerId })).data.balances.find(
        (b: { deliverableUid: string }) => b.deliverableUid === 'gems',
      ).amount;
    const gemsBefore = await gems(running.url);
    const bought = await send(running.url, null, 'buy', '/v1/store/buy', { playerId, referenceId: 'b-hoodie' });
    expect([bought.code, bought.data.status]).toEqual([200, 'Pending']);
    await stopProcess(running.child);
    expect(running.child.signalCode).toBe('SIGKILL');

    running = await startServerProcess(env);
    const url = running.url;
    const status = await eventually(
      async () => {
        const res = await send(
          url,
          null,
          'buy',
          '/v1/store/transaction-status',
          { provisionUid: bought.data.provisionUid },
          playerId,
        );
        expect(res.data.status).not.toBe('Pending');
        return res.data;
      },
      30_000,
      250,
    );
    expect(status).toMatchObject({ status: 'Failed', failureReason: 'TimedOut' });
    // The gems it cost are back.
    expect(await gems(url)).toBe(gemsBefore);
  } finally {
    await stopProcess(running.child);
    await pendingStores.release();
  }
}, 60_000);
