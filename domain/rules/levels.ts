/** Levels: reached when the player's total points meet a level's cumulative target. */
import { indexCatalog } from '../catalog/catalog-index';
import type { Catalog } from '../catalog/schema';
import type { LevelReached } from '../events/player-events';
import type { PlayerView } from '../player/state';
import { grantOf } from './grants';

/** Levels newly reached at a points total, lowest first, each with the deliverables it grants. */
export function levelsReachedAt(catalog: Catalog, state: PlayerView, totalPoints: number): LevelReached[] {
  const byUid = indexCatalog(catalog).deliverableByUid;
  return catalog.levels
    .filter((l) => l.isActive && l.target <= totalPoints && !state.levelsReached.has(l.uid))
    .sort((a, b) => a.level - b.level)
    .map((l) => ({
      uid: l.uid,
      label: l.label,
      level: l.level,
      target: l.target,
      imageName: l.imageName ?? null,
      grants: l.deliverables.map((x) => grantOf(byUid.get(x.deliverable)!, x.amount)),
    }));
}

/** Highest level number reached; 0 before any. */
export const currentLevel = (state: PlayerView): number => {
  let level = 0;
  for (const n of state.levelsReached.values()) level = Math.max(level, n);
  return level;
};
