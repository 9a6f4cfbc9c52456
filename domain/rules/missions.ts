/**
 * Missions (docs/catalog.md, "missions"): steps, each a badge condition, completed in order or not,
 * once or once per Day or Week of the player's calendar. The same advance decides an action and
 * replays a period's remaining actions after a reversal.
 */
import { addAmounts, isAmountInRange, MAX_AMOUNT_TEXT } from '../amount';
import type { Catalog, Mission } from '../catalog/types';
import type { ProgressEntry } from '../events/player-events';
import type { PlayerView } from '../player/state';
import type { DeepReadonly } from '../deep-readonly';
import { type CalendarPeriod, periodOf } from '../time/calendar';
import { localIsoToEpochMs } from '../time/local-time';
import {
  challengeHolds,
  compileCondition,
  countedEntries,
  filterMatches,
  summedValue,
  type CompiledCondition,
} from './conditions';

export interface CompiledMission {
  def: Mission;
  startMs: number | null;
  endMs: number | null;
  /** One per step. */
  conditions: CompiledCondition[];
}

/** A step whose condition an action met, with the value it adds to the step's challenge.sum. */
export interface StepMatch {
  step: number;
  value: number;
}

/** An action that met a step's condition in a mission, as recorded for replays. */
export interface MissionHit {
  ref: string;
  ts: number;
  matches: StepMatch[];
}

/** Where a mission stands in one period: each step's entries and whether it is completed. */
export interface MissionPosition {
  steps: { entries: ProgressEntry[]; completed: boolean }[];
}

const compiled = new WeakMap<Catalog, CompiledMission[]>();

/** The active missions, compiled once per catalog version (the catalog objects are immutable once published). */
export function compileMissions(catalog: Catalog): CompiledMission[] {
  const cached = compiled.get(catalog);
  if (cached) return cached;
  const tz = catalog.settings.timezone;
  const at = (iso: string | null) => (iso ? localIsoToEpochMs(iso, tz) : null);
  const missions = catalog.missions
    .filter((m) => m.isActive)
    .map((m) => ({
      def: m,
      startMs: at(m.startDate),
      endMs: at(m.endDate),
      conditions: m.steps.map((s) => compileCondition(s.condition, tz)),
    }));
  compiled.set(catalog, missions);
  return missions;
}

const CALENDAR_OF: Record<Mission['repeat'], CalendarPeriod | null> = { None: null, Daily: 'Day', Weekly: 'Week' };

/** The period of a mission holding the instant `ms` in the player's zone: 0 for a mission that does not repeat. */
export function missionPeriodOf(mission: Mission, ms: number, timeZone: string): number {
  const calendar = CALENDAR_OF[mission.repeat];
  return calendar === null ? 0 : periodOf(ms, calendar, timeZone);
}

export const missionCalendar = (mission: Mission): CalendarPeriod | null => CALENDAR_OF[mission.repeat];

export const withinWindow = (m: CompiledMission, t: number): boolean =>
  (m.startMs === null || t >= m.startMs) && (m.endMs === null || t <= m.endMs);

/** Whether the player holds the badge and has reached the level the mission requires. */
export function isUnlocked(mission: Mission, player: PlayerView): boolean {
  const { badge, level } = mission.requires;
  if (badge !== null && !(player.holdingsByUid.get(badge)?.length ?? 0)) return false;
  if (level !== null && ![...player.levelsReached.values()].some((l) => l >= level)) return false;
  return true;
}

/** The steps whose condition an action meets. */
export function stepMatches(m: CompiledMission, actionName: string, details: ReadonlyMap<string, string>): StepMatch[] {
  const out: StepMatch[] = [];
  m.conditions.forEach((c, step) => {
    if (c.action === actionName && c.filters.every((f) => filterMatches(f, details)))
      out.push({ step, value: summedValue(c, details) });
  });
  return out;
}

/**
 * The first summed detail a mission step would store that is outside the range of amounts the
 * engine holds, as a message; null when there is none.
 */
export function missionDetailOutOfRange(
  missions: readonly CompiledMission[],
  actionName: string,
  details: ReadonlyMap<string, string>,
): string | null {
  for (const m of missions) {
    for (const { step, value } of stepMatches(m, actionName, details)) {
      if (!isAmountInRange(value))
        return `details: "${m.conditions[step].sum!.field}" is ${value}, outside the range of amounts the engine holds (-${MAX_AMOUNT_TEXT} to ${MAX_AMOUNT_TEXT})`;
    }
  }
  return null;
}

export const emptyPosition = (m: CompiledMission): MissionPosition => ({
  steps: m.conditions.map(() => ({ entries: [], completed: false })),
});

export const allStepsCompleted = (p: MissionPosition): boolean => p.steps.every((s) => s.completed);

/**
 * One action on a period's position (not changed: a new one is returned). Unordered, it is an entry
 * of every step not completed whose condition it met; ordered, only of the first step not
 * completed. A step is completed when its challenge holds at the action's time.
 */
export function advance(
  m: CompiledMission,
  position: MissionPosition,
  hit: DeepReadonly<MissionHit>,
): { position: MissionPosition; counted: number[] } {
  const open = position.steps.findIndex((s) => !s.completed);
  const counted = hit.matches.filter(
    ({ step }) => !position.steps[step].completed && (!m.def.ordered || step === open),
  );
  if (counted.length === 0) return { position, counted: [] };
  const steps = position.steps.slice();
  for (const { step, value } of counted) {
    const entries = [...steps[step].entries, { ref: hit.ref, ts: hit.ts, value }];
    steps[step] = {
      entries,
      completed: challengeHolds(m.conditions[step], countedEntries(m.conditions[step], entries, hit.ts)),
    };
  }
  return { position: { steps }, counted: counted.map((c) => c.step) };
}

/** The position a period's actions give, in the order given. */
export function replayPeriod(m: CompiledMission, hits: readonly DeepReadonly<MissionHit>[]): MissionPosition {
  let position = emptyPosition(m);
  for (const hit of hits) {
    if (allStepsCompleted(position)) break;
    position = advance(m, position, hit).position;
  }
  return position;
}

/** What the list shows of a step's progress at `now`: entries counted, their sum, and the target. */
export function stepProgress(
  c: CompiledCondition,
  entries: readonly ProgressEntry[],
  now: number,
): { count: number; sum: number; target: number } {
  const counted = countedEntries(c, entries, now);
  return {
    count: counted.length,
    sum: counted.reduce((s, e) => addAmounts(s, e.value), 0),
    target: c.times ?? c.sum?.atLeast ?? 1,
  };
}
