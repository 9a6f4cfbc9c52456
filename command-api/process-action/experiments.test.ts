/**
 * Experiments (docs/catalog.md, "Experiments"): given a player and an experiment, when an action is
 * decided, then the player joins in the variant the rule gives them (once, recorded with the
 * decision), and the action is decided under that variant's game.
 */
import { createHash } from 'node:crypto';
import type { Catalog } from '../../domain/catalog/schema';
import type { PlayerEvent } from '../../domain/events';
import { variantFor } from '../../domain/rules/experiments';
import { catalogOf, DAY, playerEvents, playerSpec, succeeded, T0 } from '../../test/support/player-spec';

const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };

/** The variant rule computed here on its own, from its words: not by the code under test. */
function expectedVariant(experimentUid: string, playerId: string, variants: { uid: string; weight: number }[]): string {
  const digest = createHash('sha256')
    .update(Buffer.from(`${experimentUid}:${playerId}`, 'utf8'))
    .digest();
  const h = ((digest[0] << 24) >>> 0) + (digest[1] << 16) + (digest[2] << 8) + digest[3];
  const total = variants.reduce((s, v) => s + v.weight, 0);
  const x = (h / 4294967296) * total;
  let running = 0;
  for (const v of variants) if ((running += v.weight) > x) return v.uid;
  throw new Error('no variant');
}

const playerNumbered = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const experimentCatalog = (options: { weights?: [number, number]; window?: string; segment?: string } = {}) =>
  catalogOf(`
  version: 1
  actions:
    - { uid: act-share, identifier: share, points: 10 }
    - { uid: act-rate, identifier: rate, points: 1, isActive: false }
  segments:
    - { uid: seg-de, label: Germany, conditions: [{ attribute: country, in: [DE] }] }
  experiments:
    - uid: exp-share-points
      label: Do double share points bring players back?
      segment: ${options.segment ?? 'null'}
      ${options.window ?? ''}
      variants:
        - { uid: control, weight: ${options.weights?.[0] ?? 50} }
        - uid: double
          weight: ${options.weights?.[1] ?? 50}
          patch:
            actions: { act-share: { points: 20 }, act-rate: { isActive: true } }
`);

const VARIANTS = [
  { uid: 'control', weight: 50 },
  { uid: 'double', weight: 50 },
];
/** The first player numbers the rule puts in each variant. */
const playerIn = (variant: string, from = 1): string => {
  for (let n = from; ; n++)
    if (expectedVariant('exp-share-points', playerNumbered(n), VARIANTS) === variant) return playerNumbered(n);
};

const registered = (playerId: string, country: string | null = null): PlayerEvent => ({
  type: 'PlayerRegistered',
  data: {
    playerId,
    username: playerId,
    imageName: null,
    registeredAt: T0,
    timeZone: null,
    ...(country ? { attributes: { country } } : {}),
    levels: [],
    effects: NO_EFFECTS,
  },
});
const movedTo = (playerId: string, country: string): PlayerEvent => ({
  type: 'PlayerUpdated',
  data: {
    playerId,
    username: playerId,
    imageName: null,
    timeZone: null,
    attributes: { country },
    updatedAt: T0,
    effects: NO_EFFECTS,
  },
});

const joinsOf = (events: readonly PlayerEvent[]) =>
  events.flatMap((e) => (e.type === 'ExperimentJoined' ? [[e.data.experimentUid, e.data.variantUid]] : []));

describe('the variant rule', () => {
  it('gives each of 5,000 players the variant an independent computation of the rule gives them', () => {
    const variants = [
      { uid: 'a', weight: 50 },
      { uid: 'b', weight: 30 },
      { uid: 'c', weight: 0 },
      { uid: 'd', weight: 20 },
    ];
    const counts = new Map<string, number>();
    for (let n = 0; n < 5000; n++) {
      const playerId = playerNumbered(n * 7919);
      const variant = variantFor(
        { uid: 'exp-share-points', variants: variants.map((v) => ({ ...v, patch: {} })) },
        playerId,
      );
      expect(variant.uid).toBe(expectedVariant('exp-share-points', playerId, variants));
      counts.set(variant.uid, (counts.get(variant.uid) ?? 0) + 1);
    }
    // A weight of 0 takes nobody; the others take about their share.
    expect(counts.get('c')).toBeUndefined();
    expect(counts.get('a')! / 5000).toBeCloseTo(0.5, 1);
    expect(counts.get('d')! / 5000).toBeCloseTo(0.2, 1);
  });

  it("gives docs/catalog.md's example player the control: h = 0x0dd13ae5, x = 5.40 of 100", () => {
    const h = createHash('sha256').update('exp-share-points:0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0001').digest();
    expect(h.subarray(0, 4).toString('hex')).toBe('0dd13ae5');
    const experiment = { uid: 'exp-share-points', variants: VARIANTS.map((v) => ({ ...v, patch: {} })) };
    expect(variantFor(experiment, '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0001').uid).toBe('control');
  });

  it('puts each player an action joins in that variant, and decides the action under it', () => {
    const catalog = experimentCatalog();
    for (let n = 1; n <= 40; n++) {
      const playerId = playerNumbered(n);
      const p = playerSpec(catalog, { playerId }).given(registered(playerId));
      const decision = succeeded(p.tryProcess('share'));
      const variant = expectedVariant('exp-share-points', playerId, VARIANTS);
      expect(joinsOf(playerEvents(decision, playerId))).toEqual([['exp-share-points', variant]]);
      expect(decision.answer.experiments).toEqual([{ uid: 'exp-share-points', variant }]);
      expect(decision.answer.earnedPoints).toBe(variant === 'double' ? 20 : 10);
    }
  });
});

describe('joining an experiment', () => {
  it('is recorded once, in the append of the joining action, before its decision, which names the experiment and variant', () => {
    const playerId = playerIn('double');
    const p = playerSpec(experimentCatalog(), { playerId }).given(registered(playerId));
    const first = succeeded(p.tryProcess('share'));
    expect(playerEvents(first, playerId).map((e) => e.type)).toEqual(['ExperimentJoined', 'ActionProcessed']);
    expect(playerEvents(first, playerId)[0].data).toEqual({
      playerId,
      experimentUid: 'exp-share-points',
      variantUid: 'double',
      referenceId: 'ref-1',
      joinedAt: T0,
      timeZone: 'UTC',
      effects: NO_EFFECTS,
    });
    const second = succeeded(p.tryProcess('share'));
    expect(playerEvents(second, playerId).map((e) => e.type)).toEqual(['ActionProcessed']);
    const processed = playerEvents(second, playerId)[0];
    expect(processed.type === 'ActionProcessed' && processed.data.experiments).toEqual([
      { uid: 'exp-share-points', variant: 'double' },
    ]);
    expect(p.state.experiments.get('exp-share-points')).toEqual({
      variant: 'double',
      referenceId: 'ref-1',
      joinedAt: T0,
    });
    expect(p.state.points).toBe(40);
  });

  it('joins a new player registered by the action, after its registration', () => {
    const playerId = playerIn('control');
    const p = playerSpec(experimentCatalog(), { playerId });
    const decision = succeeded(p.tryProcess('share'));
    expect(playerEvents(decision, playerId).map((e) => e.type)).toEqual([
      'PlayerRegistered',
      'ExperimentJoined',
      'ActionProcessed',
    ]);
  });

  it('switches an entry on for the variant only: an action inactive in the base game counts in the variant', () => {
    const inDouble = playerIn('double');
    const p = playerSpec(experimentCatalog(), { playerId: inDouble }).given(registered(inDouble));
    expect(p.process('rate').actionPoints).toBe(1);
    const inControl = playerIn('control');
    const q = playerSpec(experimentCatalog(), { playerId: inControl }).given(registered(inControl));
    expect(q.tryProcess('rate')).toMatchObject({ ok: false, failure: { code: 5004 } });
  });

  it('only for players in the segment; a player who leaves it keeps their variant, one who enters joins then', () => {
    const catalog = experimentCatalog({ segment: 'seg-de' });
    const playerId = playerIn('double');
    const p = playerSpec(catalog, { playerId }).given(registered(playerId, 'FR'));
    const outside = succeeded(p.tryProcess('share'));
    expect([joinsOf(playerEvents(outside, playerId)), outside.answer.experiments, outside.answer.earnedPoints]).toEqual(
      [[], undefined, 10],
    );
    p.given(movedTo(playerId, 'DE'));
    expect(joinsOf(playerEvents(succeeded(p.tryProcess('share')), playerId))).toEqual([['exp-share-points', 'double']]);
    p.given(movedTo(playerId, 'FR'));
    const left = succeeded(p.tryProcess('share'));
    expect([joinsOf(playerEvents(left, playerId)), left.answer.experiments, left.answer.earnedPoints]).toEqual([
      [],
      [{ uid: 'exp-share-points', variant: 'double' }],
      20,
    ]);
  });

  it('keeps the variant a player joined when new weights would move them; the new weights apply to players who join after', () => {
    const playerId = playerIn('control');
    const p = playerSpec(experimentCatalog(), { playerId }).given(registered(playerId));
    p.process('share');
    const allDouble: Catalog = experimentCatalog({ weights: [0, 100] });
    const later = playerSpec(allDouble, { playerId }).given(
      ...p.recorded.map((r) => ({ type: r.type, data: r.data }) as PlayerEvent),
    );
    expect(later.process('share', { ref: 'later' }).experiments).toEqual([
      { uid: 'exp-share-points', variant: 'control' },
    ]);
    const newcomer = playerIn('control', Number.parseInt(playerId.slice(-12), 16) + 1);
    const q = playerSpec(allDouble, { playerId: newcomer }).given(registered(newcomer));
    expect(q.process('share').experiments).toEqual([{ uid: 'exp-share-points', variant: 'double' }]);
  });
});

describe("the experiment's window", () => {
  const window = "startDate: '2026-06-10T00:00:00'\n      endDate: '2026-06-20T00:00:00'";
  const catalog = experimentCatalog({ window });
  const start = Date.UTC(2026, 5, 10);
  const end = Date.UTC(2026, 5, 20);

  it('joins nobody before it or after it: those actions are decided under the base game', () => {
    const playerId = playerIn('double');
    for (const at of [start - 1, end + 1]) {
      const p = playerSpec(catalog, { playerId }).given(registered(playerId));
      const decision = succeeded(p.tryProcess('share', { at }));
      expect([joinsOf(playerEvents(decision, playerId)), decision.answer.earnedPoints]).toEqual([[], 10]);
    }
  });

  it('joins within it, start and end included; after it the player plays the base game again, still a member', () => {
    const playerId = playerIn('double');
    const p = playerSpec(catalog, { playerId }).given(registered(playerId));
    expect(p.process('share', { at: start }).actionPoints).toBe(20);
    expect(p.process('share', { at: end }).actionPoints).toBe(20);
    const after = p.process('share', { at: end + DAY });
    expect([after.actionPoints, after.experiments]).toEqual([10, undefined]);
    expect(p.state.experiments.get('exp-share-points')?.variant).toBe('double');
  });
});

describe('a reversal', () => {
  it('takes back what the variant gave, not what the base game would have', () => {
    const playerId = playerIn('double');
    const p = playerSpec(experimentCatalog(), { playerId }).given(registered(playerId));
    p.process('share', { ref: 'r1' });
    expect(p.state.points).toBe(20);
    const reversed = p.reverse('r1');
    expect(reversed.effects.points).toBe(-20);
    expect(p.state.points).toBe(0);
    // The player stays in their variant.
    expect(p.process('share').actionPoints).toBe(20);
  });
});
