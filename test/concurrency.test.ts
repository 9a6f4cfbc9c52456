/**
 * Races on one player and across players, for the guarantees the endpoint suites do not race
 * already (duplicate referenceIds, bundle stock, trigger limits and chest pool stock are raced in
 * test/http/*). Every outcome is checked against the player's recorded events: a success is one
 * event, a failure is none, and no balance ever goes below zero at any point of the stream.
 * The store is given latency (support/latency.ts) so that the races really interleave.
 */
import { randomUUID } from 'node:crypto';
import { playerStream } from '../domain/streams';
import { addAmounts } from '../domain/amount';
import type { RecordedEvent } from '../shared/adapters/event-store/port';
import type { Effects } from '../domain/events/common';
import { addLatency } from './support/latency';
import { server, startTestService, type TestService } from './support/service';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true, targetPrizes: [gold] } }
  - { uid: chest, label: Chest, type: Prize, kind: Chest, chest: { pool: [{ reward: gems, amount: { min: 1, max: 1 }, weight: 1 }] } }
  - { uid: rare-chest, label: Rare chest, type: Prize, kind: Chest, chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 2 }] } }
actions:
  - { uid: a-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: a-play, identifier: play, points: 1 }
  - { uid: a-boost, identifier: get-boost, deliverables: [{ deliverable: boost, amount: 1 }] }
  - { uid: a-chests, identifier: get-chests, deliverables: [{ deliverable: chest, amount: 3 }] }
  - { uid: a-spin, identifier: spin, points: 1, cost: 40, costDeliverable: gold, deliverables: [{ deliverable: gems, amount: 1 }] }
  - { uid: a-rare, identifier: get-rare-chest, deliverables: [{ deliverable: rare-chest, amount: 1 }] }
  - { uid: a-lucky, identifier: lucky }
triggers:
  - { uid: t-lucky, label: Lucky, type: OneTimeOnly, limited: true, limit: 3, conditions: [{ action: lucky }], deliverables: [{ deliverable: gems, amount: 10 }] }
stores:
  - uid: shop
    label: Shop
    bundles:
      - { uid: b-sword, label: Sword, cost: 30, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-limited, label: Limited sword, cost: 30, costDeliverable: gold, initialStock: 1000, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-shipped, label: Shipped sword, cost: 30, costDeliverable: gold, initialStock: 1000, requiresFulfillment: true, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-five, label: Five swords, cost: 30, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
  // Reads and appends take a moment, as over a network: requests interleave between read and append.
  addLatency(t.service.events, 8);
});
afterAll(() => t.close());

const post = (path: string, body: Record<string, unknown>) => t.http.post(path).set(server).send(body);
const act = async (playerId: string, name: string, referenceId = `${name}-${randomUUID()}`) => {
  const res = await post('/v1/action/process', { name, playerId, referenceId });
  expect(res.body.code).toBe(200);
  return referenceId;
};
const codes = (responses: { body: { code: number } }[]) => responses.map((r) => r.body.code).sort((a, b) => a - b);
const count = (all: number[], code: number) => all.filter((c) => c === code).length;
const stream = (playerId: string) => t.service.events.readStream(playerStream(playerId));
const ofType = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type);
const profile = async (playerId: string) =>
  (await post('/v1/player/profile', { playerId })).body.data as {
    points: number;
    balances: { deliverableUid: string; amount: number }[];
  };
const balance = async (playerId: string, uid: string) =>
  (await profile(playerId)).balances.find((b) => b.deliverableUid === uid)?.amount ?? 0;

/**
 * The player's points and balances as the sum of its events' effects, checking on the way that no
 * balance is below zero after any event; the profile must show the same.
 */
async function expectBalancesFromEvents(playerId: string): Promise<Record<string, number>> {
  let points = 0;
  const sums: Record<string, number> = {};
  for (const e of await stream(playerId)) {
    const effects = (e.data as { effects?: Effects }).effects;
    if (!effects) continue;
    points = addAmounts(points, effects.points);
    for (const b of effects.balances) {
      sums[b.deliverableUid] = addAmounts(sums[b.deliverableUid] ?? 0, b.amount);
      expect([e.type, b.deliverableUid, sums[b.deliverableUid] >= 0]).toEqual([e.type, b.deliverableUid, true]);
    }
  }
  const shown = await profile(playerId);
  expect(shown.points).toBe(points);
  const nonZero = Object.fromEntries(Object.entries(sums).filter(([, v]) => v !== 0));
  expect(Object.fromEntries(shown.balances.map((b) => [b.deliverableUid, b.amount]))).toEqual(nonZero);
  return nonZero;
}

const powerupOf = async (playerId: string) => {
  await act(playerId, 'get-boost');
  const listed = await post('/v1/powerup/list', { playerId });
  return listed.body.data[0].uid as string;
};

describe('the races the endpoint suites run, again with store latency (without it they cannot interleave)', () => {
  it('30 concurrent requests with one referenceId, from 3 players: processed exactly once', async () => {
    const players = Array.from({ length: 3 }, () => randomUUID());
    const referenceId = `dup-${randomUUID()}`;
    const results = codes(
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          post('/v1/action/process', { name: 'earn', playerId: players[i % 3], referenceId }),
        ),
      ),
    );
    expect([count(results, 200), count(results, 2601)]).toEqual([1, 29]);
    const processed = (await Promise.all(players.map(stream))).flat().filter((e) => e.type === 'ActionProcessed');
    expect(processed).toHaveLength(1);
  });

  it('30 buyers of a stock-5 bundle at once: exactly 5 succeed, the rest 9009', async () => {
    const players = Array.from({ length: 30 }, () => randomUUID());
    await Promise.all(players.map((p) => act(p, 'earn')));
    const results = codes(
      await Promise.all(players.map((p) => post('/v1/store/buy', { playerId: p, referenceId: 'b-five' }))),
    );
    expect([count(results, 200), count(results, 9009)]).toEqual([5, 25]);
    expect(await limitedStock('b-five')).toBe(0);
  });

  it('20 players reaching a trigger limited to 3 at once: exactly 3 get it', async () => {
    const players = Array.from({ length: 20 }, () => randomUUID());
    const results = await Promise.all(
      players.map((p) =>
        post('/v1/action/process', { name: 'lucky', playerId: p, referenceId: `lucky-${randomUUID()}` }),
      ),
    );
    expect(results.map((r) => r.body.code)).toEqual(players.map(() => 200));
    expect(
      results.filter((r) => (r.body.data.triggers ?? []).some((x: { uid: string }) => x.uid === 't-lucky')),
    ).toHaveLength(3);
    const balances = await Promise.all(players.map((p) => balance(p, 'gems')));
    expect(balances.filter((g) => g === 10)).toHaveLength(3);
  });

  it('12 players opening a chest whose only prize has a stock of 2 at once: exactly 2 get it, the rest 9012 with the chest kept', async () => {
    const players = Array.from({ length: 12 }, () => randomUUID());
    await Promise.all(players.map((p) => act(p, 'get-rare-chest')));
    const results = codes(
      await Promise.all(players.map((p) => post('/v1/chest/open', { playerId: p, chestDeliverableUId: 'rare-chest' }))),
    );
    expect([count(results, 200), count(results, 9012)]).toEqual([2, 10]);
    const held = await Promise.all(
      players.map(async (p) => [await balance(p, 'sword'), await balance(p, 'rare-chest')]),
    );
    expect(held.filter(([sword, chest]) => sword === 1 && chest === 0)).toHaveLength(2);
    expect(held.filter(([sword, chest]) => sword === 0 && chest === 1)).toHaveLength(10);
  });
});

describe('powerup activation races', () => {
  it('of 20 concurrent activations of one instance exactly one succeeds, the rest 9021; then one of 20 deactivations', async () => {
    const playerId = randomUUID();
    const powerupUId = await powerupOf(playerId);
    const activations = codes(
      await Promise.all(Array.from({ length: 20 }, () => post('/v1/powerup/activate', { playerId, powerupUId }))),
    );
    expect([count(activations, 200), count(activations, 9021)]).toEqual([1, 19]);
    expect(ofType(await stream(playerId), 'PowerupActivated')).toHaveLength(1);

    const deactivations = codes(
      await Promise.all(Array.from({ length: 20 }, () => post('/v1/powerup/deactivate', { playerId, powerupUId }))),
    );
    expect([count(deactivations, 200), count(deactivations, 9023)]).toEqual([1, 19]);
    expect(ofType(await stream(playerId), 'PowerupDeactivated')).toHaveLength(1);
    expect((await post('/v1/powerup/list', { playerId })).body.data[0].isActivated).toBe(false);
  });

  it('activations and deactivations racing on one instance strictly alternate on the stream, and the list shows the last', async () => {
    const playerId = randomUUID();
    const powerupUId = await powerupOf(playerId);
    const requests = Array.from({ length: 30 }, (_, i) =>
      post(`/v1/powerup/${i % 2 ? 'deactivate' : 'activate'}`, { playerId, powerupUId }),
    );
    const responses = await Promise.all(requests);
    const successes = responses.filter((r) => r.body.code === 200).length;
    expect(successes).toBeGreaterThanOrEqual(1);
    for (const r of responses) expect([200, 9021, 9023]).toContain(r.body.code);
    const changes = (await stream(playerId))
      .filter((e) => e.type === 'PowerupActivated' || e.type === 'PowerupDeactivated')
      .map((e) => e.type);
    expect(changes).toHaveLength(successes);
    changes.forEach((type, i) => expect(type).toBe(i % 2 ? 'PowerupDeactivated' : 'PowerupActivated'));
    expect((await post('/v1/powerup/list', { playerId })).body.data[0].isActivated).toBe(
      changes.at(-1) === 'PowerupActivated',
    );
  });

  it('across players: each of 8 players racing 5 activations of their own instance gets exactly one', async () => {
    const owners = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const playerId = randomUUID();
        return { playerId, powerupUId: await powerupOf(playerId) };
      }),
    );
    const responses = await Promise.all(
      owners.flatMap((o) =>
        Array.from({ length: 5 }, () =>
          post('/v1/powerup/activate', o).then((r) => ({ o, code: r.body.code as number })),
        ),
      ),
    );
    for (const o of owners) {
      const mine = responses.filter((r) => r.o === o).map((r) => r.code);
      expect([count(mine, 200), count(mine, 9021)]).toEqual([1, 4]);
    }
  });
});

describe('purchases by one player who can afford only some', () => {
  it('of 12 concurrent buys with gold for 3, exactly 3 succeed, the rest 9001; the balance never goes below zero', async () => {
    const playerId = randomUUID();
    await act(playerId, 'earn'); // 100 gold, bundles cost 30
    const results = codes(
      await Promise.all(Array.from({ length: 12 }, () => post('/v1/store/buy', { playerId, referenceId: 'b-sword' }))),
    );
    expect([count(results, 200), count(results, 9001)]).toEqual([3, 9]);
    expect(await expectBalancesFromEvents(playerId)).toEqual({ gold: 10, sword: 3 });
    expect(ofType(await stream(playerId), 'BundlePurchased')).toHaveLength(3);
  });

  it('mixing limited, pending and unlimited bundles and a costly action, across 5 players at once', async () => {
    const players = Array.from({ length: 5 }, () => randomUUID());
    for (const p of players) {
      await act(p, 'earn');
      await act(p, 'earn'); // 200 gold each
    }
    const spend = (playerId: string, i: number) =>
      i % 4 === 3
        ? post('/v1/action/process', { name: 'spin', playerId, referenceId: `spin-${randomUUID()}` })
        : post('/v1/store/buy', { playerId, referenceId: ['b-sword', 'b-limited', 'b-shipped'][i % 3] });
    const cost = (i: number) => (i % 4 === 3 ? 40 : 30);
    const stockBefore = (await limitedStock('b-limited')) + (await limitedStock('b-shipped'));
    const all = await Promise.all(
      players.flatMap((p) =>
        Array.from({ length: 12 }, (_, i) => spend(p, i).then((r) => ({ p, i, code: r.body.code as number }))),
      ),
    );
    let stockTaken = 0;
    for (const p of players) {
      const mine = all.filter((r) => r.p === p);
      for (const r of mine) expect([200, 9001]).toContain(r.code);
      const spent = mine.filter((r) => r.code === 200).reduce((n, r) => n + cost(r.i), 0);
      const balances = await expectBalancesFromEvents(p);
      expect(balances.gold ?? 0).toBe(200 - spent);
      // Balances only went down during the race: each refusal costs more than what is left.
      for (const r of mine.filter((x) => x.code === 9001)) expect(balances.gold ?? 0).toBeLessThan(cost(r.i));
      stockTaken += mine.filter((r) => r.code === 200 && r.i % 4 !== 3 && r.i % 3 !== 0).length;
    }
    expect(stockBefore - (await limitedStock('b-limited')) - (await limitedStock('b-shipped'))).toBe(stockTaken);
  });
});

describe('a reversal racing other changes of the same player', () => {
  it('reversing an action while a new one is processed: both apply, the state is the sum of the events', async () => {
    const players = Array.from({ length: 6 }, () => randomUUID());
    const firsts = await Promise.all(players.map((p) => act(p, 'earn')));
    const raced = await Promise.all(
      players.map(async (p, i) => {
        const [reversal, ...news] = await Promise.all([
          post('/v1/action/delete', { name: 'earn', playerId: p, referenceId: firsts[i] }),
          post('/v1/action/process', { name: 'earn', playerId: p, referenceId: `earn-${randomUUID()}` }),
          post('/v1/action/process', { name: 'play', playerId: p, referenceId: `play-${randomUUID()}` }),
        ]);
        return { reversal: reversal.body.code as number, news: news.map((r) => r.body.code as number) };
      }),
    );
    for (const [i, p] of players.entries()) {
      expect(raced[i]).toEqual({ reversal: 200, news: [200, 200] });
      expect(await expectBalancesFromEvents(p)).toEqual({ gold: 100 });
      expect((await profile(p)).points).toBe(11);
      expect(ofType(await stream(p), 'ActionReversed')).toHaveLength(1);
    }
  });

  it('reversing an action while its prize is being spent: exactly one of the two succeeds, the other changes nothing', async () => {
    const players = Array.from({ length: 10 }, () => randomUUID());
    const firsts = await Promise.all(players.map((p) => act(p, 'earn'))); // 100 gold each
    const outcomes = await Promise.all(
      players.map(async (p, i) => {
        const [reversal, purchase] = await Promise.all([
          post('/v1/action/delete', { name: 'earn', playerId: p, referenceId: firsts[i] }),
          post('/v1/store/buy', { playerId: p, referenceId: 'b-sword' }),
        ]);
        return [reversal.body.code, purchase.body.code] as [number, number];
      }),
    );
    for (const [i, p] of players.entries()) {
      const [reversal, purchase] = outcomes[i];
      // Reversed first: no gold left to buy (9001). Bought first: taking the 100 gold back would go negative (101).
      expect([
        [200, 9001],
        [101, 200],
      ]).toContainEqual([reversal, purchase]);
      const events = await stream(p);
      expect(ofType(events, 'ActionReversed')).toHaveLength(reversal === 200 ? 1 : 0);
      expect(ofType(events, 'BundlePurchased')).toHaveLength(purchase === 200 ? 1 : 0);
      expect(await expectBalancesFromEvents(p)).toEqual(reversal === 200 ? {} : { gold: 70, sword: 1 });
    }
  });

  it('20 concurrent reversals of one action: exactly one succeeds, the rest 101', async () => {
    const playerId = randomUUID();
    const referenceId = await act(playerId, 'earn');
    await act(playerId, 'earn');
    const results = codes(
      await Promise.all(
        Array.from({ length: 20 }, () => post('/v1/action/delete', { name: 'earn', playerId, referenceId })),
      ),
    );
    expect([count(results, 200), count(results, 101)]).toEqual([1, 19]);
    expect(ofType(await stream(playerId), 'ActionReversed')).toHaveLength(1);
    expect(await expectBalancesFromEvents(playerId)).toEqual({ gold: 100 });
  });
});

describe('transactions raced on one provision', () => {
  it('20 concurrent refunds of one purchase: exactly one succeeds (9010 after), currency and stock come back once', async () => {
    const playerId = randomUUID();
    await act(playerId, 'earn');
    const bought = await post('/v1/store/buy', { playerId, referenceId: 'b-limited' });
    expect(bought.body.code).toBe(200);
    const stockAfterBuy = await limitedStock();
    const results = codes(
      await Promise.all(
        Array.from({ length: 20 }, () =>
          post('/v1/store/refund-transaction', { provisionUid: bought.body.data.provisionUid }),
        ),
      ),
    );
    expect([count(results, 200), count(results, 9010)]).toEqual([1, 19]);
    expect(ofType(await stream(playerId), 'ProvisionRefunded')).toHaveLength(1);
    expect(await expectBalancesFromEvents(playerId)).toEqual({ gold: 100 });
    expect(await limitedStock()).toBe(stockAfterBuy + 1);
  });

  it('complete and cancel racing on one Pending purchase: exactly one of them succeeds', async () => {
    const players = Array.from({ length: 6 }, () => randomUUID());
    await Promise.all(players.map((p) => act(p, 'earn')));
    for (const p of players) {
      const bought = await post('/v1/store/buy', { playerId: p, referenceId: 'b-shipped' });
      const provisionUid = bought.body.data.provisionUid;
      const moves = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post(`/v1/store/${i % 2 ? 'cancel' : 'complete'}-transaction`, { provisionUid }),
        ),
      );
      const ok = moves
        .map((m, i) => [i % 2 ? 'cancel' : 'complete', m.body.code] as const)
        .filter(([, code]) => code === 200);
      expect(ok).toHaveLength(1);
      for (const m of moves) expect([200, 9002, 9003]).toContain(m.body.code);
      expect(await expectBalancesFromEvents(p)).toEqual(
        ok[0][0] === 'complete' ? { gold: 70, sword: 1 } : { gold: 100 },
      );
    }
  });
});

describe('chest openings by one player', () => {
  it('with a balance of 3 chests, of 10 concurrent openings exactly 3 succeed and the rest 9011', async () => {
    const playerId = randomUUID();
    await act(playerId, 'get-chests');
    const results = codes(
      await Promise.all(
        Array.from({ length: 10 }, () => post('/v1/chest/open', { playerId, chestDeliverableUId: 'chest' })),
      ),
    );
    expect([count(results, 200), count(results, 9011)]).toEqual([3, 7]);
    expect(ofType(await stream(playerId), 'ChestOpened')).toHaveLength(3);
    expect(await expectBalancesFromEvents(playerId)).toEqual({ gems: 3 });
    expect(await balance(playerId, 'chest')).toBe(0);
  });

  it('across 6 players with 3 chests each, 6 openings each at once: 3 each', async () => {
    const players = Array.from({ length: 6 }, () => randomUUID());
    await Promise.all(players.map((p) => act(p, 'get-chests')));
    const all = await Promise.all(
      players.flatMap((p) =>
        Array.from({ length: 6 }, () =>
          post('/v1/chest/open', { playerId: p, chestDeliverableUId: 'chest' }).then((r) => ({
            p,
            code: r.body.code as number,
          })),
        ),
      ),
    );
    for (const p of players) {
      const mine = all.filter((r) => r.p === p).map((r) => r.code);
      expect([count(mine, 200), count(mine, 9011)]).toEqual([3, 3]);
      expect(await expectBalancesFromEvents(p)).toEqual({ gems: 3 });
    }
  });
});

async function limitedStock(bundleUid = 'b-limited'): Promise<number> {
  const bundles = (await t.http.get('/v1/admin/stores/shop').set(server)).body.data[0].storeBundles as {
    uid: string;
    remainingStock: number;
  }[];
  return bundles.find((b) => b.uid === bundleUid)!.remainingStock;
}
