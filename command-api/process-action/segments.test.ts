/**
 * Segments (docs/catalog.md, "Segments"): given a player in or out of a segment, when an action is
 * decided, then the badges, triggers, streaks and missions naming it apply to them or not, read on
 * the state before the action's own effects.
 */
import type { PlayerEvent } from '../../domain/events';
import type { ActionProcessed } from '../../domain/events/player-events';
import { catalogOf, PLAYER, playerSpec, T0 } from '../../test/support/player-spec';

const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };

const game = catalogOf(`
  version: 1
  actions:
    - { identifier: order, points: 100 }
  levels:
    - { uid: l1, level: 1, target: 0, label: One }
    - { uid: l2, level: 2, target: 100, label: Two }
  segments:
    - { uid: seg-dach, label: Germany and Austria, conditions: [{ attribute: country, in: [DE, AT] }] }
    - { uid: seg-level-2, label: Level 2 and up, conditions: [{ level: { min: 2 } }] }
  badges:
    - { uid: b-dach, label: DACH order, type: Repeatable, conditions: [{ action: order }], segment: seg-dach }
    - { uid: b-level-2, label: Level 2 order, type: OneTimeOnly, conditions: [{ action: order }], segment: seg-level-2 }
  triggers:
    - { uid: t-dach, label: DACH trigger, type: OneTimeOnly, conditions: [{ action: order }], segment: seg-dach }
  streaks:
    - { uid: s-dach, label: DACH days, period: Day, conditions: [{ action: order }], segment: seg-dach }
  missions:
    - uid: m-dach
      label: DACH mission
      segment: seg-dach
      steps: [{ uid: s1, label: Order twice, condition: { action: order, challenge: { times: 2 } } }]
`);

const registeredIn = (country: string | null): PlayerEvent => ({
  type: 'PlayerRegistered',
  data: {
    playerId: PLAYER,
    username: PLAYER,
    imageName: null,
    registeredAt: T0,
    timeZone: null,
    ...(country ? { attributes: { country } } : {}),
    levels: [{ uid: 'l1', level: 1, label: 'One', target: 0, imageName: null, grants: [] }],
    effects: NO_EFFECTS,
  },
});
const movedTo = (country: string): PlayerEvent => ({
  type: 'PlayerUpdated',
  data: {
    playerId: PLAYER,
    username: PLAYER,
    imageName: null,
    timeZone: null,
    attributes: { country },
    updatedAt: T0,
    effects: NO_EFFECTS,
  },
});

const earned = (p: ActionProcessed) => ({
  badges: (p.result.badges ?? []).map((b) => b.uid),
  triggers: (p.result.triggers ?? []).map((t) => t.uid),
  streaks: (p.result.streaks ?? []).map((s) => s.uid),
  missions: (p.result.missions ?? []).map((m) => m.uid),
});

describe('rules naming a segment', () => {
  it("apply to a player in the segment: the badge, the trigger, the streak and the mission's progress", () => {
    const p = playerSpec(game).given(registeredIn('DE'));
    expect(earned(p.process('order'))).toEqual({
      badges: ['b-dach'],
      triggers: ['t-dach'],
      streaks: ['s-dach'],
      missions: ['m-dach'],
    });
  });

  it('count nothing for a player out of it: no award, no progress recorded', () => {
    const p = playerSpec(game).given(registeredIn('FR'));
    const processed = p.process('order');
    expect(earned(processed)).toEqual({ badges: [], triggers: [], streaks: [], missions: [] });
    expect([processed.progress, p.state.progress.size, p.state.missions.size]).toEqual([[], 0, 0]);
    expect(earned(playerSpec(game).given(registeredIn(null)).process('order')).badges).toEqual([]);
  });

  it('a player who leaves the segment keeps what they earned in it, and earns no more of it', () => {
    const p = playerSpec(game).given(registeredIn('AT'));
    p.process('order');
    p.given(movedTo('FR'));
    expect(earned(p.process('order'))).toEqual({ badges: ['b-level-2'], triggers: [], streaks: [], missions: [] });
    expect(p.state.holdingsByUid.get('b-dach')).toHaveLength(1);
    expect(p.state.holdingsByUid.has('t-dach')).toBe(true);
    expect(p.state.streaks.get('s-dach')).toMatchObject({ length: 1 });
  });

  it("read the player's state before the action's own effects: the action that reaches level 2 is not yet of level 2", () => {
    const p = playerSpec(game).given(registeredIn('FR'));
    const first = p.process('order');
    expect(first.result.achievedLevel).toMatchObject({ level: 2 });
    expect(earned(first).badges).toEqual([]);
    expect(earned(p.process('order')).badges).toEqual(['b-level-2']);
  });
});
