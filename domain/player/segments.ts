/**
 * Segments (docs/catalog.md, "Segments"): whether a player is in one, read on their state as it is
 * when an action is decided, before that action's own effects. Pure: a replay re-makes the same
 * answer from the same recorded state.
 */
import type { Catalog, Segment, SegmentCondition } from '../catalog/types';
import type { PlayerView } from './state';

/** The membership a segment reads: the player's attributes, levels reached, holdings and points. */
export type SegmentSubject = Pick<PlayerView, 'attributes' | 'levelsReached' | 'holdingsByUid' | 'points'>;

/** The highest level number the player has reached; 0 before any. */
export function levelNumberOf(player: Pick<PlayerView, 'levelsReached'>): number {
  let highest = 0;
  for (const level of player.levelsReached.values()) highest = Math.max(highest, level);
  return highest;
}

const within = (value: number, range: { min: number | null; max: number | null }): boolean =>
  (range.min === null || value >= range.min) && (range.max === null || value <= range.max);

function conditionHolds(condition: SegmentCondition, player: SegmentSubject): boolean {
  if ('attribute' in condition) {
    const value = player.attributes[condition.attribute];
    return value !== undefined && condition.in.includes(value);
  }
  if ('level' in condition) return within(levelNumberOf(player), condition.level);
  if ('badge' in condition) return (player.holdingsByUid.get(condition.badge)?.length ?? 0) > 0;
  return within(player.points, condition.points);
}

/** Whether every condition of the segment holds for the player. */
export const isInSegment = (segment: Segment, player: SegmentSubject): boolean =>
  segment.conditions.every((c) => conditionHolds(c, player));

/**
 * Whether an entry naming `segment` (a uid, or null for everyone) applies to the player. A uid the
 * catalog does not hold matches nobody (validation refuses such a catalog).
 */
export function appliesTo(catalog: Catalog, segment: string | null, player: SegmentSubject): boolean {
  // Falsy, not only null: a catalog version published before segments existed has no such field.
  if (!segment) return true;
  const found = catalog.segments.find((s) => s.uid === segment);
  return found !== undefined && isInSegment(found, player);
}
