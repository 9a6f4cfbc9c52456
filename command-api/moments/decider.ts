/** A moment's job: the moment appended once it is due, if it is still true and not yet appended. */
import type { Catalog } from '../../domain/catalog/types';
import type { DeepReadonly } from '../../domain/deep-readonly';
import { leagueEventOf } from '../../domain/events';
import { cohortEntries, entryRevision, LEAGUE_TIER_FOLD } from '../../domain/league-stream';
import { PLAYER_FOLD } from '../../domain/player/fold';
import { evolve, type PlayerState, type SentMoment } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { cohortOf, leaguesOf, standingsOf, zoneOf } from '../../domain/rules/leagues';
import { nextMoment, openLeaguePeriod, type LeaguePlace, type MomentType } from '../../domain/rules/moments';
import { leagueStream, playerStream } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import { playerOf } from '../player-reads';
import { eventAt, folded, type Reads, type UseCase } from '../use-case';

export interface MomentCommand {
  playerId: string;
  type: MomentType;
  /** The streak's, mission's or league's uid; '' for the player. */
  subject: string;
}

/** A league cohort as the job read it: the members' states in their order of entry (the player among them). */
export interface MomentCohort {
  leagueUid: string;
  periodStart: number;
  tier: string;
  members: PlayerState[];
}

export interface MomentState {
  player: PlayerState;
  /** For a LeagueEnding: the player's cohort of the period ending next; null otherwise, or when not found. */
  cohort: MomentCohort | null;
}

export interface MomentAnswer {
  /** The moment appended now, or null (not yet due, no longer true, or already appended). */
  appended: SentMoment | null;
  /** The subject's next moment of the type, to look at again then; null: none to come. */
  next: SentMoment | null;
}

/**
 * The player's cohort in the league period ending next, as the settlement reads one: the tier's
 * stream, whose entries are read in order up to the player's (the cohort is a run of entries), then
 * the cohort's members' states.
 */
function* cohortOfPlayer(player: PlayerState, leagueUid: string, now: number): Reads<MomentCohort | null> {
  const standing = openLeaguePeriod(player, leagueUid, now);
  if (!standing) return null;
  const stream = leagueStream(leagueUid, standing.start, standing.tier);
  const { state: tier } = yield* folded(stream, LEAGUE_TIER_FOLD);
  for (let index = 0; index < tier.entries; index++) {
    const recorded = yield* eventAt(stream, entryRevision(tier, index));
    const entry = recorded && leagueEventOf(recorded);
    if (entry?.type !== 'LeagueEntered' || entry.data.playerId !== player.playerId) continue;
    const members: PlayerState[] = [];
    for (const i of cohortEntries(tier, cohortOf(index, tier.cohortSize))) {
      if (i === index) {
        members.push(player);
        continue;
      }
      const other = yield* eventAt(stream, entryRevision(tier, i));
      const member = other && leagueEventOf(other);
      if (member?.type === 'LeagueEntered')
        members.push((yield* folded(playerStream(member.data.playerId), PLAYER_FOLD)).state);
    }
    return { leagueUid, periodStart: standing.start, tier: standing.tier, members };
  }
  return null;
}

function* momentReads(cmd: MomentCommand, env: { now: number }): Reads<MomentState> {
  const player = yield* playerOf(cmd.playerId);
  const cohort = cmd.type === 'LeagueEnding' ? yield* cohortOfPlayer(player, cmd.subject, env.now) : null;
  return { player, cohort };
}

/** The player's rank and zone in the cohort read, as the settlement would rank it now. */
function placeIn(state: DeepReadonly<MomentState>, catalog: Catalog): LeaguePlace[] {
  const { cohort, player } = state;
  const tier =
    cohort &&
    leaguesOf(catalog)
      .find((l) => l.uid === cohort.leagueUid)
      ?.tiers.find((t) => t.uid === cohort.tier);
  if (!cohort || !tier) return [];
  const members = cohort.members.map((member, entry) => {
    const standing = member.leagues.get(cohort.leagueUid)?.open.find((o) => o.start === cohort.periodStart);
    return { playerId: member.playerId, entry, metric: standing?.metric ?? 0, reachedAt: standing?.reachedAt ?? 0 };
  });
  const ranked = standingsOf(members);
  const rank = ranked.findIndex((m) => m.playerId === player.playerId) + 1;
  const zone = zoneOf(tier, rank, ranked.length);
  return [{ leagueUid: cohort.leagueUid, periodStart: cohort.periodStart, rank, zone }];
}

/**
 * Decided on the player's state as the job finds it (and, for a league, their cohort's), so a
 * streak extended at 19:59, a mission completed, an action since or a player overtaken out of the
 * zones makes it append nothing, and a rerun finds the moment appended.
 */
export const decideMoment: Decider<MomentCommand, MomentState, MomentAnswer> = (cmd, state, env) => {
  const places = placeIn(state, env.catalog);
  const due = nextMoment(env.catalog, state.player, cmd.type, cmd.subject, env.now, places);
  if (due === null || due.data.dueAt > env.now) return ok(decision({ appended: null, next: due }, []));
  const after = evolve(state.player, { ...due, revision: -1 });
  const next = nextMoment(env.catalog, after, cmd.type, cmd.subject, env.now, places);
  return ok(decision({ appended: due, next }, [{ stream: playerStream(cmd.playerId), events: [due] }]));
};

/** The moment job's use case: decided on the player's state (and a league moment's cohort). */
export const momentDecider: UseCase<MomentCommand, MomentState, MomentAnswer> = {
  read: momentReads,
  decide: decideMoment,
};
