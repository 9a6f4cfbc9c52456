/**
 * The rules of leagues (docs/catalog.md, "Leagues"), pure: the period of an instant, what an action
 * adds to each league and the tier it enters, cohorts read off the order of entry, standings, and
 * a cohort's settlement.
 */
import type { Catalog, League, LeagueTier, LeagueZone } from '../catalog/types';
import type { LeagueContribution, LeaguePeriodBounds, LeagueReturn } from '../events/league-schemas';
import type { LeagueOutcome } from '../events/league-events';
import type { PlayerView } from '../player/state';
import { periodEnd, periodOf, periodStart } from '../time/calendar';

const MINUTE_MS = 60_000;

/** The leagues of a catalog (a version published before leagues existed has none). */
export const leaguesOf = (catalog: Catalog): readonly League[] => catalog.leagues ?? [];

/** The period of a league holding the instant `ms`: a Day or Week in the league's zone, or N minutes from the epoch. */
export function leaguePeriodAt(league: League, ms: number, catalogZone: string): LeaguePeriodBounds {
  if (typeof league.period === 'object') {
    const length = league.period.minutes * MINUTE_MS;
    const start = Math.floor(ms / length) * length;
    return { start, end: start + length };
  }
  const zone = league.timeZone ?? catalogZone;
  const ordinal = periodOf(ms, league.period, zone);
  return { start: periodStart(ordinal, league.period, zone), end: periodEnd(ordinal, league.period, zone) };
}

/** When a period is settled: its end plus the league's grace. */
export const settleAtOf = (league: League, period: LeaguePeriodBounds): number =>
  period.end + league.settleAfterSeconds * 1000;

/** The tier a player enters a period in: the one their last settled period gave (the lowest the first time, or when it is gone). */
export function entryTier(league: League, player: PlayerView): LeagueTier {
  const tier = player.leagues.get(league.uid)?.tier;
  return league.tiers.find((t) => t.uid === tier) ?? league.tiers[0];
}

/**
 * What an action dated `timestamp` and decided at `now` adds to each league: its points (when it
 * earned any) or 1 for the metric's action, in the period of its timestamp, unless that period is
 * settled (its settlement time passed: actions then count for nothing). The first to add to a
 * period enters the player in it, in the tier they would enter now.
 */
export function leagueContributions(
  catalog: Catalog,
  player: PlayerView,
  action: { name: string; timestamp: number; points: number },
  now: number,
): LeagueContribution[] {
  const out: LeagueContribution[] = [];
  for (const league of leaguesOf(catalog)) {
    const amount = league.metric === 'points' ? action.points : league.metric.action === action.name ? 1 : 0;
    if (!(amount > 0)) continue;
    const period = leaguePeriodAt(league, action.timestamp, catalog.settings.timezone);
    const settleAt = settleAtOf(league, period);
    if (now >= settleAt) continue;
    const run = player.leagues.get(league.uid);
    // Settled already for this player: an action decided before the settlement time whose append
    // lost the race to the settlement's is decided again on the settled state, and adds nothing.
    if (run?.settledStart != null && period.start <= run.settledStart) continue;
    const open = run?.open.find((o) => o.start === period.start);
    out.push({
      uid: league.uid,
      period,
      settleAt,
      tier: open?.tier ?? entryTier(league, player).uid,
      amount,
      entered: !open,
    });
  }
  return out;
}

/**
 * What a reversal decided at `now` takes back: what the action added to each league period the
 * player is still in, not yet settled (a settled result stands).
 */
export function leagueReturns(
  player: PlayerView,
  added: readonly { uid: string; period: { start: number }; amount: number }[],
  now: number,
): LeagueReturn[] {
  return added.flatMap((c) => {
    const standing = player.leagues.get(c.uid)?.open.find((o) => o.start === c.period.start);
    return standing && now < standing.settleAt ? [{ uid: c.uid, start: c.period.start, amount: c.amount }] : [];
  });
}

/** The cohort (from 1) of the player who entered `index`th (from 0) in a period's tier. */
export const cohortOf = (index: number, cohortSize: number): number => Math.floor(index / cohortSize) + 1;

/** A cohort member as standings read them. */
export interface CohortMember {
  playerId: string;
  metric: number;
  /** Unix ms their metric last changed. */
  reachedAt: number;
  /** Their place in the order of entry (from 0). */
  entry: number;
}

/** Highest metric first; a tie to who reached it first, then to who entered first: ranks are distinct. */
export function standingsOf<M extends CohortMember>(members: readonly M[]): M[] {
  return [...members].sort((a, b) => b.metric - a.metric || a.reachedAt - b.reachedAt || a.entry - b.entry);
}

/** The zone a rank is in: promoted at the end if it stays there, demoted, or safe. Both: Promotion. */
export function zoneOf(tier: LeagueTier, rank: number, cohortPlayers: number): LeagueZone {
  if (rank <= tier.promote) return 'Promotion';
  if (rank > cohortPlayers - tier.demote) return 'Demotion';
  return 'Safe';
}

/** The outcome of a final rank and the tier it leads to. */
export function outcomeOf(
  league: League,
  tierIndex: number,
  rank: number,
  cohortPlayers: number,
): { outcome: LeagueOutcome; nextTier: string } {
  const tier = league.tiers[tierIndex];
  const zone = zoneOf(tier, rank, cohortPlayers);
  if (zone === 'Promotion' && tierIndex + 1 < league.tiers.length)
    return { outcome: 'Promoted', nextTier: league.tiers[tierIndex + 1].uid };
  if (zone === 'Demotion' && tierIndex > 0) return { outcome: 'Demoted', nextTier: league.tiers[tierIndex - 1].uid };
  return { outcome: 'Stayed', nextTier: tier.uid };
}

/** The prize of a final rank in a tier, or null. */
export const prizeOf = (tier: LeagueTier, rank: number) =>
  tier.prizes.find((p) => p.ranks[0] <= rank && rank <= p.ranks[1]) ?? null;
