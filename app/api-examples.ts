/**
 * The values the API document's examples take from the running service (shared/adapters/http/openapi.ts
 * withExamples): names of its catalog and webhooks, and one fresh player per document served, so that "Try
 * it out" on process, then buy or chest open, acts for the same new player.
 */
import { randomUUID } from 'node:crypto';
import type { Catalog } from '../domain/catalog/types';
import type { ExampleValue } from '../shared/adapters/http/openapi';

const DAY_MS = 86_400_000;
const CATALOG_BODY_PATHS = new Set([
  '/v1/admin/catalog/validate',
  '/v1/admin/catalog/diff',
  '/v1/admin/catalog/publish',
]);

/** The catalog versions the examples name: the one in force, and the newest (what a publication expects). */
export interface ExampleVersions {
  inForce: number;
  newest: number;
}

export function exampleValues(catalog: Catalog, webhooks: readonly string[], versions: ExampleVersions): ExampleValue {
  const playerId = randomUUID();
  const action = catalog.actions.find((a) => a.isActive)?.identifier;
  const bundle = catalog.stores.flatMap((s) => s.bundles)[0]?.uid;
  const chest = catalog.deliverables.find((d) => d.kind === 'Chest' && d.isActive)?.uid;
  const leaderboard = catalog.leaderboards[0]?.uid;
  const league = (catalog.leagues ?? [])[0]?.uid;
  const firstOf = {
    actionID: catalog.actions[0]?.uid,
    badgeID: catalog.badges[0]?.uid,
    triggerID: catalog.triggers[0]?.uid,
    storeID: catalog.stores[0]?.uid,
  };
  /** The 32-hex uids the service gives provisions, openings and powerups: one of no such thing. */
  const unknownUid = () => randomUUID().replace(/-/g, '');
  return (field, path) => {
    switch (field) {
      case 'playerId':
        return playerId;
      case 'name':
        return action;
      // A bundle of the store in a purchase; else a reference of the caller's, new each time.
      case 'referenceId':
        return path === '/v1/store/buy' ? bundle : randomUUID();
      case 'chestDeliverableUId':
        return chest;
      case 'leaderboardID':
        return leaderboard;
      case 'leagueUid':
        return league;
      case 'actionID':
      case 'badgeID':
      case 'triggerID':
      case 'storeID':
        return firstOf[field];
      case 'webhook':
        return webhooks[0];
      // An experiment's results: the catalog's first experiment.
      case 'uid':
        return path.startsWith('/v1/admin/experiments') ? catalog.experiments?.[0]?.uid : undefined;
      // A draft to simulate: the catalog in force (a replay under it changes nothing), as a file
      // would write it (a value left out is null once parsed).
      // The catalog routes' too: validated, diffed or published, it is the version in force (nothing published).
      case 'catalog':
        return path === '/v1/audit/simulate' || CATALOG_BODY_PATHS.has(path)
          ? JSON.parse(JSON.stringify(catalog, (_key, v: unknown) => (v === null ? undefined : v)))
          : undefined;
      case 'expectedVersion':
        return versions.newest;
      // A revert to the version in force publishes nothing; a version read is the one in force.
      case 'version':
        return path.startsWith('/v1/admin/catalog') ? versions.inForce : undefined;
      // The last 30 days of the analytics.
      case 'from':
      case 'to':
        return path.startsWith('/v1/admin/analytics')
          ? new Date(Date.now() - (field === 'from' ? 29 * DAY_MS : 0)).toISOString().slice(0, 10)
          : undefined;
      // An adjustment needs something to adjust.
      case 'points':
        return path === '/v1/admin/players/adjust' ? 10 : undefined;
      case 'provisionUid':
      case 'openingUid':
      case 'powerupUId':
        return unknownUid();
      default:
        return undefined;
    }
  };
}
