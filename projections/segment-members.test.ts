/**
 * The segment members read model counts a player in a segment exactly when the decider would
 * (domain/player/segments.ts): given a history made by the deciders (registration with
 * attributes, actions awarding badges and levels, an attribute change, a reversal, an erasure),
 * when it is projected, then each segment's count is the membership read on the player's state.
 */
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { playerEventOf } from '../domain/events';
import { isInSegment } from '../domain/player/segments';
import { playerStream } from '../domain/streams';
import { SEGMENT_MEMBERS_COLLECTION, segmentFilter } from '../shared/read-models/segments';
import { catalogOf, PLAYER, playerSpec, T0 } from '../test/support/player-spec';
import type { LogReader } from './projector';
import { segmentMembersProjector } from './segment-members';

const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };
const game = catalogOf(`
  version: 1
  actions:
    - { identifier: order, points: 60 }
  badges:
    - { uid: badge-regular, label: Regular, type: OneTimeOnly, conditions: [{ action: order, challenge: { times: 2 } }] }
  levels:
    - { uid: l1, level: 1, target: 0, label: One }
    - { uid: l2, level: 2, target: 100, label: Two }
  segments:
    - uid: seg-dach-regulars
      label: Regulars in Germany and Austria
      conditions:
        - { attribute: country, in: [DE, AT] }
        - { level: { min: 2 } }
        - { badge: badge-regular }
        - { points: { min: 100 } }
    - { uid: seg-newcomers, label: Newcomers, conditions: [{ level: { max: 1 } }, { points: { max: 59 } }] }
`);

/** The projector reads nothing of the log. */
const NO_LOG: LogReader = { readStream: () => Promise.reject(new Error('not read')) };

describe('the segment members read model', () => {
  it('counts the player in a segment after each event exactly when their state is in it, once per event however often delivered', async () => {
    const p = playerSpec(game).given({
      type: 'PlayerRegistered',
      data: {
        playerId: PLAYER,
        username: PLAYER,
        imageName: null,
        registeredAt: T0,
        timeZone: null,
        attributes: { country: 'AT' },
        levels: [{ uid: 'l1', level: 1, label: 'One', target: 0, imageName: null, grants: [] }],
        effects: NO_EFFECTS,
      },
    });
    const store = new MemoryReadStore();
    const members = store.collection(SEGMENT_MEMBERS_COLLECTION);
    let projected = 0;
    const project = async () => {
      for (const recorded of p.recorded.slice(projected)) {
        const event = playerEventOf({ ...recorded, streamName: playerStream(PLAYER) })!;
        // Delivered twice: the second is a redelivery, applied once.
        await segmentMembersProjector.apply(event, store, NO_LOG);
        await segmentMembersProjector.apply(event, store, NO_LOG);
      }
      projected = p.recorded.length;
      const counted = await Promise.all(game.segments.map((s) => members.countDocuments(segmentFilter(s))));
      expect(counted).toEqual(game.segments.map((s) => (p.state.registered && isInSegment(s, p.state) ? 1 : 0)));
      return counted;
    };

    expect(await project()).toEqual([0, 1]);
    p.process('order', { ref: 'first' });
    expect(await project()).toEqual([0, 0]);
    p.process('order', { ref: 'second' }); // 120 points, level 2, badge-regular
    expect(await project()).toEqual([1, 0]);
    p.reverse('second'); // back to 60 points, level 1, no badge
    expect(await project()).toEqual([0, 0]);
    p.process('order', { ref: 'third' });
    expect(await project()).toEqual([1, 0]);
    p.given({
      type: 'PlayerUpdated',
      data: {
        playerId: PLAYER,
        username: PLAYER,
        imageName: null,
        timeZone: null,
        attributes: { country: 'FR' },
        updatedAt: T0,
        effects: NO_EFFECTS,
      },
    });
    expect(await project()).toEqual([0, 0]);
    p.given({ type: 'PlayerErased', data: { playerId: PLAYER, erasedAt: T0, effects: NO_EFFECTS } });
    await project();
    expect(await members.countDocuments({})).toBe(1); // kept, emptied
  });

  it('counts a repeatable badge while any of its awards is held, and writes nothing for an event that moves nothing it reads', async () => {
    const repeatable = catalogOf(`
      version: 1
      actions:
        - { identifier: play, points: 0 }
        - { identifier: look, points: 0 }
      badges:
        - { uid: badge-player, label: Player, type: Repeatable, conditions: [{ action: play, challenge: { times: 1 } }] }
      segments:
        - { uid: seg-players, label: Players, conditions: [{ badge: badge-player }] }
    `);
    const p = playerSpec(repeatable).given({
      type: 'PlayerRegistered',
      data: {
        playerId: PLAYER,
        username: PLAYER,
        imageName: null,
        registeredAt: T0,
        timeZone: null,
        attributes: {},
        levels: [],
        effects: NO_EFFECTS,
      },
    });
    const store = new MemoryReadStore();
    const members = store.collection(SEGMENT_MEMBERS_COLLECTION);
    let projected = 0;
    const project = async () => {
      for (const recorded of p.recorded.slice(projected))
        await segmentMembersProjector.apply(
          playerEventOf({ ...recorded, streamName: playerStream(PLAYER) })!,
          store,
          NO_LOG,
        );
      projected = p.recorded.length;
      const [segment] = repeatable.segments;
      const counted = await members.countDocuments(segmentFilter(segment));
      expect(counted).toBe(isInSegment(segment, p.state) ? 1 : 0);
      return counted;
    };

    p.process('play', { ref: 'a' });
    p.process('play', { ref: 'b' });
    expect(await project()).toBe(1);
    p.reverse('a'); // one of two awards taken back: still held
    expect(await project()).toBe(1);
    p.reverse('b');
    expect(await project()).toBe(0);
    const written = await members.findOne({ _id: PLAYER });
    p.process('look', { ref: 'c' }); // no points, no award: the document stays as it was
    expect(await project()).toBe(0);
    expect(await members.findOne({ _id: PLAYER })).toEqual(written);
    p.process('play', { ref: 'd' });
    expect(await project()).toBe(1);
  });
});
