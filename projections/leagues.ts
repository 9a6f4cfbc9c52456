/** The leagues projector: each player's league periods (tier, cohort, metric, result) and each period's tiers. */
import { addAmounts, subtractAmounts } from '../domain/amount';
import { leagueEventOf, playerEventOf } from '../domain/events';
import { cohortOf } from '../domain/rules/leagues';
import type { ReadStore } from '../shared/adapters/read-store/port';
import {
  LEAGUE_COLLECTIONS,
  leagueMemberId,
  leagueTierId,
  type LeagueMemberDoc,
  type LeagueTierDoc,
} from '../shared/read-models/leagues';
import type { Projector } from './projector';

type MemberChange = (doc: LeagueMemberDoc) => void;

/** Applies a change to a member's document once: a redelivered event (position not past the document's) changes nothing. */
async function changeMember(
  store: ReadStore,
  key: { league: string; start: number; end: number; playerId: string; tier: string },
  position: number,
  change: MemberChange,
): Promise<void> {
  const members = store.collection<LeagueMemberDoc>(LEAGUE_COLLECTIONS.members);
  const _id = leagueMemberId(key.league, key.start, key.playerId);
  const stored = await members.findOne({ _id });
  if (stored && position <= stored.position) return;
  const doc: LeagueMemberDoc = stored
    ? { ...stored }
    : {
        _id,
        ...key,
        cohort: null,
        entry: null,
        metric: 0,
        reachedAt: 0,
        settled: false,
        rank: null,
        outcome: null,
        nextTier: null,
        prize: null,
        position,
      };
  change(doc);
  doc.position = position;
  await members.replaceOne({ _id }, doc, { upsert: true });
}

/**
 * Cohorts are numbered by the order of entry into a period's tier, as the settlement reads them off
 * the tier's stream: the tier's document counts the entries in log order. Actions and reversals
 * move a member's metric (and when they last did, the tie-break); LeagueFinished records the result.
 */
export const leaguesProjector: Projector = {
  name: 'leagues',
  collections: Object.values(LEAGUE_COLLECTIONS),
  indexes: [
    // A cohort's standings in order, as the index holds them: the read costs the cohort, not the league.
    {
      collection: LEAGUE_COLLECTIONS.members,
      keys: { league: 1, start: 1, tier: 1, cohort: 1, metric: -1, reachedAt: 1, entry: 1 },
    },
    { collection: LEAGUE_COLLECTIONS.members, keys: { league: 1, playerId: 1, settled: 1, start: -1 } },
    { collection: LEAGUE_COLLECTIONS.tiers, keys: { league: 1, start: 1, tier: 1 } },
  ],
  handles: new Set(['ActionProcessed', 'ActionReversed', 'LeagueEntered', 'LeagueFinished']),
  async apply(recorded, store) {
    const league = leagueEventOf(recorded);
    if (league?.type === 'LeagueEntered') {
      const e = league.data;
      const tiers = store.collection<LeagueTierDoc>(LEAGUE_COLLECTIONS.tiers);
      const _id = leagueTierId(e.leagueUid, e.period.start, e.tier);
      const stored = await tiers.findOne({ _id });
      if (stored && recorded.position <= stored.position) return;
      const entry = stored?.entries ?? 0;
      const cohortSize = stored?.cohortSize || e.cohortSize;
      await tiers.replaceOne(
        { _id },
        {
          _id,
          league: e.leagueUid,
          ...e.period,
          tier: e.tier,
          entries: entry + 1,
          cohortSize,
          position: recorded.position,
        },
        { upsert: true },
      );
      const key = { league: e.leagueUid, ...e.period, playerId: e.playerId, tier: e.tier };
      return changeMember(store, key, recorded.position, (doc) =>
        Object.assign(doc, { tier: e.tier, entry, cohort: cohortOf(entry, cohortSize) }),
      );
    }
    const event = playerEventOf(recorded);
    if (event?.type === 'ActionProcessed') {
      const e = event.data;
      for (const c of e.leagues ?? [])
        await changeMember(
          store,
          { league: c.uid, ...c.period, playerId: e.playerId, tier: c.tier },
          recorded.position,
          (doc) =>
            // A settled result stands (the decision adds nothing to a settled period: a guard only).
            doc.settled
              ? undefined
              : Object.assign(doc, { metric: addAmounts(doc.metric, c.amount), reachedAt: e.decidedAt ?? e.timestamp }),
        );
    } else if (event?.type === 'ActionReversed') {
      const e = event.data;
      const members = store.collection<LeagueMemberDoc>(LEAGUE_COLLECTIONS.members);
      for (const r of e.leagues ?? []) {
        const stored = await members.findOne({ _id: leagueMemberId(r.uid, r.start, e.playerId) });
        if (stored)
          await changeMember(store, stored, recorded.position, (doc) =>
            Object.assign(doc, { metric: subtractAmounts(doc.metric, r.amount), reachedAt: e.reversedAt }),
          );
      }
    } else if (event?.type === 'LeagueFinished') {
      const e = event.data;
      const key = { league: e.leagueUid, ...e.period, playerId: e.playerId, tier: e.tier };
      await changeMember(store, key, recorded.position, (doc) =>
        Object.assign(doc, {
          settled: true,
          cohort: e.cohort,
          metric: e.metric,
          rank: e.rank,
          outcome: e.outcome,
          nextTier: e.nextTier,
          prize: e.prize,
        }),
      );
    }
  },
};
