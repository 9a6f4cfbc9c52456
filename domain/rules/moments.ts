/**
 * Moments to reach a player (docs/catalog.md, "moments"): a streak at risk, a mission ending, a
 * league period ending, a player gone quiet. Each kind says, from the player's state (and, for a
 * league, their place in their cohort as the job read it), which moment of a subject (a streak, a
 * mission, a league, the player) is the next one due, when, and what its event says; the moment
 * job (command-api/moments) appends it once it is due and still true, and the decisions that make
 * a moment due (an action, a change of zone) schedule that job. One entry of MOMENT_KINDS per kind:
 * a new kind (leagueEnding, once leagues exist) is one more entry.
 */
import type { Catalog, LeagueZone, Moments } from '../catalog/types';
import { noEffects } from '../events/common';
import type { ActionProcessed } from '../events/player-events';
import { momentKey, type PlayerView, type SentMoment } from '../player/state';
import { periodAfter, periodEnd, periodLabel, periodOf } from '../time/calendar';
import { localIsoToEpochMs } from '../time/local-time';
import { leaguesOf } from './leagues';
import { compileMissions, missionCalendar, type CompiledMission } from './missions';

export type MomentType = SentMoment['type'];

/** The job that appends moments: one per player, type and subject, so a later schedule replaces an earlier one. */
export const MOMENT_JOB = 'moment';

export const momentJobId = (playerId: string, type: MomentType, subject: string): string =>
  `moment-${type}-${playerId}${subject ? `-${subject}` : ''}`;

/** A moment's job as a decision schedules it (command-api/decision.ts ScheduledJob). */
export interface MomentJob {
  type: typeof MOMENT_JOB;
  id: string;
  runAt: number;
  payload: { playerId: string; type: MomentType; subject: string };
}

const momentJob = (playerId: string, type: MomentType, subject: string, runAt: number): MomentJob => ({
  type: MOMENT_JOB,
  id: momentJobId(playerId, type, subject),
  runAt,
  payload: { playerId, type, subject },
});

/** A player's place in their cohort of a league period, as the moment job read the cohort. */
export interface LeaguePlace {
  leagueUid: string;
  periodStart: number;
  rank: number;
  zone: LeagueZone;
}

/**
 * What a kind reads besides the state: the catalog, the player's zone, the time, and their places
 * in their league cohorts (only the moment job reads a cohort: elsewhere none are known).
 */
interface MomentContext {
  catalog: Catalog;
  timeZone: string;
  now: number;
  places?: readonly LeaguePlace[];
}

interface MomentKind<Type extends MomentType, Settings> {
  type: Type;
  settings(moments: Moments): Settings | undefined;
  /** The subjects the player has moments of: the streaks, the missions, or the player ('') itself. */
  subjects(state: PlayerView): Iterable<string>;
  /**
   * The subject's next moment not yet appended and still true, its `dueAt` past or to come; null
   * when there is none (nothing at risk, already told, already over).
   */
  next(
    settings: Settings,
    state: PlayerView,
    subject: string,
    at: MomentContext,
  ): Extract<SentMoment, { type: Type }> | null;
  /** The subjects whose moment an action may have moved, each with when to look again (their job's time). */
  afterAction(
    settings: Settings,
    before: PlayerView,
    action: ActionProcessed,
    at: MomentContext,
  ): { subject: string; runAt: number }[];
}

/** The instant of a local time of day (`HH:MM`) on a day of the player's calendar. */
const atLocalTime = (day: number, time: string, timeZone: string): number =>
  localIsoToEpochMs(`${periodLabel(day, 'Day')}T${time}:00`, timeZone);

/** The last day that still extends a Day run, and when it ends: the day after the last counted one, plus a day per freeze held. */
function runDeadline(run: { lastPeriod: number; freezes: number }, timeZone: string) {
  const lastDay = periodAfter(run.lastPeriod, 1 + run.freezes, 'Day', timeZone);
  return { lastDay, endsAt: periodEnd(lastDay, 'Day', timeZone) };
}

const streakAtRisk: MomentKind<'StreakAtRisk', NonNullable<Moments['streakAtRisk']>> = {
  type: 'StreakAtRisk',
  settings: (m) => m.streakAtRisk,
  subjects: (state) => state.streaks.keys(),
  next(settings, state, streakUid, { catalog, timeZone, now }) {
    const streak = catalog.streaks.find((s) => s.uid === streakUid);
    const run = state.streaks.get(streakUid);
    if (!streak?.isActive || streak.period !== 'Day' || !run || run.lastPeriod === null) return null;
    if (run.length < settings.minLength) return null;
    const sent = state.moments.get(momentKey('StreakAtRisk', streakUid));
    if (sent?.type === 'StreakAtRisk' && sent.data.lastPeriod === run.lastPeriod) return null;
    const { lastDay, endsAt } = runDeadline({ lastPeriod: run.lastPeriod, freezes: run.freezes }, timeZone);
    if (now >= endsAt) return null;
    const data = {
      playerId: state.playerId,
      streakUid,
      length: run.length,
      endsAt,
      lastPeriod: run.lastPeriod,
      dueAt: atLocalTime(lastDay, settings.atLocalTime, timeZone),
      effects: noEffects(),
    };
    return { type: 'StreakAtRisk', data };
  },
  afterAction(settings, before, action, { catalog, timeZone }) {
    return (action.streaks ?? []).flatMap((step) => {
      const streak = catalog.streaks.find((s) => s.uid === step.uid);
      // Only a step that moved the run moves its deadline: the day's first qualifying action.
      const moved = before.streaks.get(step.uid)?.lastPeriod !== step.lastPeriod;
      if (streak?.period !== 'Day' || !moved || step.length < settings.minLength) return [];
      const { lastDay } = runDeadline(step, timeZone);
      return [{ subject: step.uid, runAt: atLocalTime(lastDay, settings.atLocalTime, timeZone) }];
    });
  },
};

/** When a mission's period ends for the player: its Day or Week's end, or its window's, whichever comes first (null: never). */
function missionEndsAt(m: CompiledMission, period: number, timeZone: string): number | null {
  const calendar = missionCalendar(m.def);
  const ends = [calendar ? periodEnd(period, calendar, timeZone) : null, m.endMs].filter((t) => t !== null);
  return ends.length ? Math.min(...ends) : null;
}

const missionEnding: MomentKind<'MissionEnding', NonNullable<Moments['missionEnding']>> = {
  type: 'MissionEnding',
  settings: (m) => m.missionEnding,
  subjects: (state) => state.missions.keys(),
  next(settings, state, missionUid, { catalog, timeZone, now }) {
    const m = compileMissions(catalog).find((c) => c.def.uid === missionUid);
    const run = state.missions.get(missionUid);
    if (!m || !run || run.periods.size === 0) return null;
    const period = Math.max(...run.periods.keys());
    const progress = run.periods.get(period)!;
    const done = progress.steps.filter((s) => s?.completed).length;
    if (progress.completion || !progress.steps.some((s) => s?.entries.length)) return null;
    const endsAt = missionEndsAt(m, period, timeZone);
    if (endsAt === null || now >= endsAt) return null;
    const sent = state.moments.get(momentKey('MissionEnding', missionUid));
    if (sent?.type === 'MissionEnding' && sent.data.period === period) return null;
    const dueAt = endsAt - settings.hoursBefore * 3_600_000;
    // The player who worked on it once it was due needs no reminder.
    const lastWorked = Math.max(...run.hits.filter((h) => h.period === period).map((h) => h.ts));
    if (lastWorked >= dueAt) return null;
    const data = {
      playerId: state.playerId,
      missionUid,
      endsAt,
      stepsLeft: m.def.steps.length - done,
      period,
      dueAt,
      effects: noEffects(),
    };
    return { type: 'MissionEnding', data };
  },
  afterAction(settings, before, action, { catalog, timeZone }) {
    return (action.missions ?? []).flatMap((move) => {
      const m = compileMissions(catalog).find((c) => c.def.uid === move.uid);
      // A period's end is known from its first hit on: later ones leave the job as it is.
      const started = before.missions.get(move.uid)?.periods.has(move.period) ?? false;
      const endsAt = m && !started && !move.completion ? missionEndsAt(m, move.period, timeZone) : null;
      if (endsAt === null) return [];
      const dueAt = endsAt - settings.hoursBefore * 3_600_000;
      return dueAt > action.timestamp ? [{ subject: move.uid, runAt: dueAt }] : [];
    });
  },
};

/** The league period the player is in that ends next, not yet over at `now` (undefined: none). */
export const openLeaguePeriod = (state: PlayerView, leagueUid: string, now: number) =>
  state.leagues
    .get(leagueUid)
    ?.open.filter((o) => now < o.end)
    .sort((a, b) => a.end - b.end)[0];

const leagueEnding: MomentKind<'LeagueEnding', NonNullable<Moments['leagueEnding']>> = {
  type: 'LeagueEnding',
  settings: (m) => m.leagueEnding,
  subjects: (state) => state.leagues.keys(),
  next(settings, state, leagueUid, { catalog, now, places }) {
    const standing = openLeaguePeriod(state, leagueUid, now);
    if (!standing || !leaguesOf(catalog).some((l) => l.uid === leagueUid)) return null;
    const sent = state.moments.get(momentKey('LeagueEnding', leagueUid));
    if (sent?.type === 'LeagueEnding' && sent.data.periodStart === standing.start) return null;
    // The zone is the cohort's: without it (a pending list, a change of zone) the moment is unknown.
    const place = places?.find((p) => p.leagueUid === leagueUid && p.periodStart === standing.start);
    if (!place) return null;
    const dueAt = standing.end - settings.hoursBefore * 3_600_000;
    // Once due, only a player in one of the zones is told; before, the job looks again then.
    if (dueAt <= now && !settings.zones.includes(place.zone)) return null;
    const data = {
      playerId: state.playerId,
      leagueUid,
      tier: standing.tier,
      zone: place.zone,
      rank: place.rank,
      endsAt: standing.end,
      periodStart: standing.start,
      dueAt,
      effects: noEffects(),
    };
    return { type: 'LeagueEnding', data };
  },
  afterAction(settings, _before, action, { now }) {
    // Entering a period schedules its moment; the zone is looked at when it runs.
    return (action.leagues ?? []).flatMap((c) =>
      c.entered && now < c.period.end
        ? [{ subject: c.uid, runAt: c.period.end - settings.hoursBefore * 3_600_000 }]
        : [],
    );
  },
};

/** Each mark of inactivity after an action at `lastActionAt`: `days` after its day, at the local time. */
function inactivityMarks(settings: NonNullable<Moments['inactive']>, lastActionAt: number, timeZone: string) {
  const day = periodOf(lastActionAt, 'Day', timeZone);
  return settings.afterDays.map((days) => ({
    days,
    dueAt: atLocalTime(periodAfter(day, days, 'Day', timeZone), settings.atLocalTime, timeZone),
  }));
}

const inactive: MomentKind<'PlayerInactive', NonNullable<Moments['inactive']>> = {
  type: 'PlayerInactive',
  settings: (m) => m.inactive,
  subjects: () => [''],
  next(settings, state, _subject, { timeZone, now }) {
    const lastActionAt = state.lastActionAt;
    if (lastActionAt === null) return null;
    const sent = state.moments.get(momentKey('PlayerInactive', ''));
    const told = sent?.type === 'PlayerInactive' && sent.data.lastActionAt === lastActionAt ? sent.data.days : 0;
    const marks = inactivityMarks(settings, lastActionAt, timeZone).filter((m) => m.days > told);
    // Of several marks passed (a job that ran late), the player hears of the longest only.
    const passed = marks.filter((m) => m.dueAt <= now);
    const mark = passed.at(-1) ?? marks[0];
    if (!mark) return null;
    return {
      type: 'PlayerInactive',
      data: { playerId: state.playerId, days: mark.days, lastActionAt, dueAt: mark.dueAt, effects: noEffects() },
    };
  },
  afterAction(settings, before, action, { timeZone }) {
    const last = before.lastActionAt;
    // The first action of a day moves the marks; the day's later ones leave them.
    if (last !== null && periodOf(action.timestamp, 'Day', timeZone) <= periodOf(last, 'Day', timeZone)) return [];
    return [{ subject: '', runAt: inactivityMarks(settings, action.timestamp, timeZone)[0].dueAt }];
  },
};

/** Every kind of moment: one entry each. */
const MOMENT_KINDS = [streakAtRisk, missionEnding, leagueEnding, inactive] as const;

type AnyKind = MomentKind<MomentType, unknown>;
const kindOf = (type: MomentType): AnyKind => MOMENT_KINDS.find((k) => k.type === type) as AnyKind;

/** The kinds the catalog turns on, each with its settings. */
function kindsOn(catalog: Catalog): { kind: AnyKind; settings: unknown }[] {
  const moments = catalog.moments;
  if (!moments) return [];
  return MOMENT_KINDS.flatMap((k) => {
    const settings = (k as AnyKind).settings(moments);
    return settings === undefined ? [] : [{ kind: k as AnyKind, settings }];
  });
}

const contextOf = (catalog: Catalog, state: PlayerView, now: number, timeZone?: string): MomentContext => ({
  catalog,
  timeZone: timeZone ?? state.timeZone ?? catalog.settings.timezone,
  now,
});

/**
 * The subject's next moment of a type (see MomentKind.next); null when the catalog has that kind
 * off, or the player is gone. `places`: the player's places in the league cohorts read.
 */
export function nextMoment(
  catalog: Catalog,
  state: PlayerView,
  type: MomentType,
  subject: string,
  now: number,
  places: readonly LeaguePlace[] = [],
): SentMoment | null {
  const settings = catalog.moments && kindOf(type).settings(catalog.moments);
  if (settings === undefined || !state.registered) return null;
  return kindOf(type).next(settings, state, subject, { ...contextOf(catalog, state, now), places });
}

/** Every moment of the player still to come or due now, soonest first: what GET /v1/player/moments lists as pending. */
export function pendingMoments(catalog: Catalog, state: PlayerView, now: number, timeZone?: string): SentMoment[] {
  if (!state.registered) return [];
  const at = contextOf(catalog, state, now, timeZone);
  return kindsOn(catalog)
    .flatMap(({ kind, settings }) => [...kind.subjects(state)].map((s) => kind.next(settings, state, s, at)))
    .filter((m) => m !== null)
    .sort((a, b) => a.data.dueAt - b.data.dueAt);
}

/** The subject a moment is about. */
export function subjectOf(moment: SentMoment): string {
  switch (moment.type) {
    case 'StreakAtRisk':
      return moment.data.streakUid;
    case 'MissionEnding':
      return moment.data.missionUid;
    case 'LeagueEnding':
      return moment.data.leagueUid;
    case 'PlayerInactive':
      return '';
  }
}

/** The moments an action may have made due, as jobs to look at them then (the job decides on the state it finds). */
export function momentJobsAfterAction(
  catalog: Catalog,
  before: PlayerView,
  action: ActionProcessed,
  timeZone: string,
  now: number,
): MomentJob[] {
  const at = { catalog, timeZone, now };
  return kindsOn(catalog).flatMap(({ kind, settings }) =>
    kind
      .afterAction(settings, before, action, at)
      .map(({ subject, runAt }) => momentJob(action.playerId, kind.type, subject, runAt)),
  );
}

/**
 * A player's pending moments under a new time zone, as jobs: each replaces the job scheduled under
 * the old one (same id), so the moment comes at the new zone's local time.
 */
export function momentJobsInZone(catalog: Catalog, state: PlayerView, timeZone: string, now: number): MomentJob[] {
  return pendingMoments(catalog, state, now, timeZone).map((m) =>
    momentJob(state.playerId, m.type, subjectOf(m), m.data.dueAt),
  );
}

/** The job that looks at a moment again at `runAt`. */
export const momentJobAt = (playerId: string, moment: SentMoment): MomentJob =>
  momentJob(playerId, moment.type, subjectOf(moment), moment.data.dueAt);
