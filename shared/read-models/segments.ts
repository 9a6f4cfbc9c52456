/**
 * What segments read of each registered player (docs/catalog.md, "Segments"), one document per
 * player: written by the segment-members projector, counted by GET /v1/admin/segments with the
 * read store's own query, one count per segment.
 */
import { addAmounts } from '../../domain/amount';
import type { Segment } from '../../domain/catalog/types';
import type { PlayerEvent } from '../../domain/events';
import { stateOfSnapshot } from '../../domain/player/state';
import type { Filter } from '../adapters/read-store/port';

export const SEGMENT_MEMBERS_COLLECTION = 'segment_members';

export interface SegmentMemberDoc extends Record<string, unknown> {
  _id: string;
  /** Log position of the last event applied: a redelivered event is applied once. */
  position: number;
  /** Kept, emptied, so that a redelivered registration does not bring the player back; counted by no segment. */
  erased: boolean;
  /** Each attribute as `JSON.stringify([name, value])`: one string a query can match whatever the name holds. */
  attributes: string[];
  points: number;
  /** Level number by level uid, of each level reached. */
  levels: Record<string, number>;
  /** The highest level number reached; 0 before any. */
  level: number;
  /**
   * How many awards of each badge or trigger the player holds, by uid: a count, not the awards
   * themselves, so that a repeatable badge's thousandth award costs no more to apply than its first.
   */
  held: Record<string, number>;
  /** The uids of the badges and triggers held, each once. */
  badges: string[];
}

const attributeKey = (name: string, value: string): string => JSON.stringify([name, value]);

function member(
  playerId: string,
  position: number,
  parts: Pick<SegmentMemberDoc, 'attributes' | 'points' | 'levels' | 'held'>,
  erased = false,
): SegmentMemberDoc {
  return {
    _id: playerId,
    position,
    erased,
    ...parts,
    level: Math.max(0, ...Object.values(parts.levels)),
    badges: Object.keys(parts.held),
  };
}

/** `held` with each uid's count moved by `by` (one per award); a uid no longer held is left out. */
function heldAfter(
  held: Readonly<Record<string, number>>,
  uids: readonly string[],
  by: 1 | -1,
): Record<string, number> {
  const after = { ...held };
  for (const uid of uids) {
    const count = (after[uid] ?? 0) + by;
    if (count > 0) after[uid] = count;
    else delete after[uid];
  }
  return after;
}

/** `levels` with the levels reached set; the same object when none was. */
const levelsAfter = (
  levels: Record<string, number>,
  reached: readonly { uid: string; level: number }[],
): Record<string, number> =>
  reached.length === 0 ? levels : { ...levels, ...Object.fromEntries(reached.map((l) => [l.uid, l.level])) };

const attributesOf = (attributes: Readonly<Record<string, string>>): string[] =>
  Object.entries(attributes).map(([name, value]) => attributeKey(name, value));

/**
 * The player's document after a player event at log `position` (null: not registered); a new
 * document, `doc` is never changed. An event at or before the document's position was applied.
 */
export function memberAfter(
  doc: SegmentMemberDoc | null,
  playerId: string,
  event: PlayerEvent,
  position: number,
): SegmentMemberDoc | null {
  if (doc !== null && (position <= doc.position || doc.erased)) return doc;
  if (event.type === 'PlayerErased')
    return member(playerId, position, { attributes: [], points: 0, levels: {}, held: {} }, true);
  if (event.type === 'PlayerRegistered') {
    const levels = Object.fromEntries(event.data.levels.map((l) => [l.uid, l.level]));
    const attributes = attributesOf(event.data.attributes ?? {});
    return member(playerId, position, { attributes, points: event.data.effects.points, levels, held: {} });
  }
  if (doc === null) return null;
  const { points } = doc;
  let { attributes, levels, held } = doc;
  switch (event.type) {
    case 'PlayerUpdated':
      if (event.data.attributes) attributes = attributesOf(event.data.attributes);
      break;
    case 'ActionProcessed':
      if (event.data.awards.length > 0)
        held = heldAfter(
          held,
          event.data.awards.map((a) => a.uid),
          1,
        );
      levels = levelsAfter(levels, event.data.levels);
      break;
    case 'ChestOpened':
    case 'PlayerAdjusted':
    case 'LeaderboardSeasonFinished':
      levels = levelsAfter(levels, event.data.levels);
      break;
    case 'ActionReversed': {
      held = heldAfter(
        held,
        event.data.revokedAwards.map((r) => r.uid),
        -1,
      );
      if (event.data.revokedLevels.length > 0) {
        const revoked = new Set(event.data.revokedLevels.map((l) => l.uid));
        levels = Object.fromEntries(Object.entries(levels).filter(([uid]) => !revoked.has(uid)));
      }
      break;
    }
    case 'PlayerRecomputed': {
      // The fields the recomputed history changed, as they now are: its effects are already in them.
      const state = stateOfSnapshot(event.data.state);
      return member(playerId, position, {
        attributes,
        points: 'points' in state ? state.points : points,
        levels: 'levelsReached' in state ? Object.fromEntries(state.levelsReached) : levels,
        held:
          'holdings' in state
            ? heldAfter(
                {},
                state.holdings.map((h) => h.uid),
                1,
              )
            : held,
      });
    }
  }
  // An event that moves nothing segments read is not written (applying it again would change nothing either).
  const unchanged =
    event.data.effects.points === 0 && attributes === doc.attributes && levels === doc.levels && held === doc.held;
  if (unchanged) return doc;
  return member(playerId, position, {
    attributes,
    points: addAmounts(points, event.data.effects.points),
    levels,
    held,
  });
}

/** The read store's filter of the players a segment holds: every condition, as isInSegment reads it. */
export function segmentFilter(segment: Segment): Filter {
  const range = (r: { min: number | null; max: number | null }) => ({
    ...(r.min !== null ? { $gte: r.min } : {}),
    ...(r.max !== null ? { $lte: r.max } : {}),
  });
  return {
    $and: [
      { erased: false },
      ...segment.conditions.map((c): Filter => {
        if ('attribute' in c) return { attributes: { $in: c.in.map((v) => attributeKey(c.attribute, v)) } };
        if ('level' in c) return { level: range(c.level) };
        if ('badge' in c) return { badges: c.badge };
        return { points: range(c.points) };
      }),
    ],
  };
}
