import { PLAYER_EVENTS, playerEventOf, type EventType } from '../domain/events';
import { playerIdOfStream } from '../domain/streams';
import { memberAfter, SEGMENT_MEMBERS_COLLECTION, type SegmentMemberDoc } from '../shared/read-models/segments';
import type { Projector } from './projector';

/**
 * What segments read of each registered player: attributes, points, level, badges held
 * (shared/read-models/segments.ts); an erased player is kept emptied, and no segment counts them.
 */
export const segmentMembersProjector: Projector = {
  name: 'segment-members',
  collections: [SEGMENT_MEMBERS_COLLECTION],
  // Every player event: each carries the points it moved.
  handles: new Set(Object.keys(PLAYER_EVENTS) as EventType[]),
  async apply(event, store) {
    const player = playerEventOf(event);
    const playerId = playerIdOfStream(event.streamName);
    if (!player || playerId === null) return;
    const members = store.collection<SegmentMemberDoc>(SEGMENT_MEMBERS_COLLECTION);
    const before = await members.findOne({ _id: playerId });
    const after = memberAfter(before, playerId, player, event.position);
    if (after && after !== before) await members.replaceOne({ _id: playerId }, after, { upsert: true });
  },
};
