/** The analytics projector: daily buckets of what the players did, in the catalog's time zone. */
import { addAmounts } from '../domain/amount';
import { PLAYER_EVENTS, playerEventOf, type EventType, type PlayerEvent, type Recorded } from '../domain/events';
import {
  ANALYTICS_COLLECTIONS,
  emptyDay,
  type ActivePlayerDoc,
  type DayDoc,
  type KeyedValues,
  type SplitSeries,
  type TotalSeries,
} from '../shared/read-models/analytics';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { seasonPeriod } from '../domain/time/season';
import type { Projector } from './projector';
import { catalogPutInForce } from '../domain/catalog/versions';
import { effectAmounts } from './analytics-effects';

/** What one event adds to the days it touches: per day, the changes of totals and of keyed values. */
class DayChanges {
  readonly days = new Map<string, { totals: Map<TotalSeries, number>; split: Map<SplitSeries, Map<string, number>> }>();

  /** The last instant asked for and its day: an event's changes mostly fall on one instant. */
  private lastMs = NaN;
  private lastDay = '';

  constructor(private readonly timezone: string) {}

  private day(ms: number) {
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastDay = seasonPeriod(ms, 'daily', this.timezone);
    }
    const day = this.lastDay;
    let changes = this.days.get(day);
    if (!changes) this.days.set(day, (changes = { totals: new Map(), split: new Map() }));
    return changes;
  }

  total(ms: number, series: TotalSeries, delta: number): void {
    const { totals } = this.day(ms);
    totals.set(series, addAmounts(totals.get(series) ?? 0, delta));
  }

  keyed(ms: number, series: SplitSeries, key: string, delta: number): void {
    const { split } = this.day(ms);
    let values = split.get(series);
    if (!values) split.set(series, (values = new Map()));
    values.set(key, addAmounts(values.get(key) ?? 0, delta));
  }
}

/**
 * Per day of the catalog's time zone: actions processed (in all and per action), players active
 * (distinct), players registered, points earned less those taken back, deliverables granted,
 * spent, refunded and expired, badges and levels awarded, bundles bought, chests opened, reversals,
 * support adjustments.
 *
 * Points and deliverables are every player event's effects (analytics-effects.ts), so the days add
 * up to the players' points and balances: what actions, awards, levels, streak milestones, mission
 * completions, chests and bundles grant, what reversals, refunds, expiry and recomputes change, and
 * an event of a kind this projector does not know. An action, and all it earned, counts on the day
 * of its `timestamp` (as leaderboards do). A reversal leaves the action counted (it was processed)
 * and takes back what was earned from the day it was counted on; it counts in `reversals`, and the
 * cost it gives back in `refunded`, on the day it was made. Levels stay counted as reached.
 *
 * Idempotent under redelivery: a day document records the position of the last event applied to
 * it and skips events up to it; a player's days of activity record the action that made each, so
 * a redelivery of that action counts the player again where the day had not taken it yet.
 * Replaying events under another time zone would not be idempotent, hence `checkpointAround`
 * CatalogPublished and CatalogVersionInForce. The changes of the events applied to a store are added up in memory and
 * written by `flush`, each day's and player's document once (see Gathered).
 */
export const analyticsProjector: Projector = {
  name: 'analytics',
  collections: Object.values(ANALYTICS_COLLECTIONS),
  // Every player event: each carries effects, whatever its kind.
  handles: new Set<EventType>([
    'CatalogPublished',
    'CatalogVersionInForce',
    ...(Object.keys(PLAYER_EVENTS) as EventType[]),
  ]),
  checkpointAround: new Set(['CatalogPublished', 'CatalogVersionInForce']),
  apply(event, store) {
    return gatheredOf(store).serially(async (gathered) => {
      if (event.type === 'CatalogPublished' || event.type === 'CatalogVersionInForce') {
        // A version scheduled later counts from when it comes into force (its CatalogVersionInForce).
        const catalog = catalogPutInForce(event)?.catalog;
        if (!catalog) return;
        const was = await settingsOf(store);
        const next: Settings = {
          timezone: catalog.settings.timezone,
          powerups: new Set([
            ...was.powerups,
            ...catalog.deliverables.filter((d) => d.kind === 'Powerup').map((d) => d.uid),
          ]),
        };
        await store
          .collection(ANALYTICS_COLLECTIONS.settings)
          .replaceOne(
            { _id: 'catalog' },
            { _id: 'catalog', timezone: next.timezone, powerups: [...next.powerups].sort() },
            { upsert: true },
          );
        settings.set(store, next);
        return;
      }
      const player = playerEventOf(event);
      if (!player) return;
      const { timezone, powerups } = await settingsOf(store);
      const changes = changesOf(player, powerups, new DayChanges(timezone));
      if (player.type === 'ActionProcessed') {
        const e = player.data;
        const day = seasonPeriod(e.timestamp, 'daily', timezone);
        if (await gathered.becameActive(store, day, e.playerId, event.position))
          changes.total(e.timestamp, 'active-players', 1);
      }
      await gathered.add(store, changes, event.position);
    });
  },
  flush(store) {
    return gatheredOf(store).serially((gathered) => gathered.write(store));
  },
  reset(store) {
    settings.delete(store);
    gathereds.delete(store);
  },
};

/**
 * What the projector keeps of the catalogs published: the time zone days are counted in (the
 * latest's), and every deliverable any of them made a powerup (instances, not a balance).
 */
interface Settings {
  timezone: string;
  powerups: ReadonlySet<string>;
}

/** The settings of each read store, as its settings document holds them; keyed by the store object, as the leaderboards' boards are. */
const settings = new WeakMap<ReadStore, Settings>();

async function settingsOf(store: ReadStore): Promise<Settings> {
  let known = settings.get(store);
  if (known === undefined) {
    const doc = await store
      .collection<{ _id: string; timezone: string; powerups?: string[] }>(ANALYTICS_COLLECTIONS.settings)
      .findOne({ _id: 'catalog' });
    known = { timezone: doc?.timezone ?? 'UTC', powerups: new Set(doc?.powerups ?? []) };
    settings.set(store, known);
  }
  return known;
}

/**
 * What a player event counts besides its effects' amounts (analytics-effects.ts): actions,
 * registrations, badges, levels, purchases, chest openings and reversals.
 */
function eventsCounted(event: Recorded<PlayerEvent>, changes: DayChanges): void {
  switch (event.type) {
    case 'PlayerRegistered': {
      const e = event.data;
      changes.total(e.registeredAt, 'new-players', 1);
      for (const l of e.levels) changes.keyed(e.registeredAt, 'levels', l.uid, 1);
      break;
    }
    case 'ActionProcessed': {
      const e = event.data;
      const at = e.timestamp;
      changes.total(at, 'actions', 1);
      changes.keyed(at, 'actions-by-action', e.actionName, 1);
      for (const a of e.awards) if (a.kind === 'badge') changes.keyed(at, 'badges', a.uid, 1);
      for (const l of e.levels) changes.keyed(at, 'levels', l.uid, 1);
      break;
    }
    case 'ActionReversed': {
      const e = event.data;
      changes.total(e.reversedAt, 'reversals', 1);
      for (const a of e.revokedAwards) if (a.kind === 'badge') changes.keyed(a.awardedAt, 'badges', a.uid, -1);
      break;
    }
    case 'ChestOpened': {
      const e = event.data;
      changes.total(e.openedAt, 'chest-openings', 1);
      for (const l of e.levels) changes.keyed(e.openedAt, 'levels', l.uid, 1);
      break;
    }
    case 'BundlePurchased':
      changes.keyed(event.data.purchasedAt, 'purchases', event.data.bundleUid, 1);
      break;
    case 'PlayerAdjusted': {
      // Its points and deliverables are its effects (signed), on its day; here, that it was made.
      const e = event.data;
      changes.total(e.adjustedAt, 'adjustments', 1);
      for (const l of e.levels) changes.keyed(e.adjustedAt, 'levels', l.uid, 1);
      break;
    }
  }
}

function changesOf(event: Recorded<PlayerEvent>, powerups: ReadonlySet<string>, changes: DayChanges): DayChanges {
  eventsCounted(event, changes);
  effectAmounts(event, powerups, {
    points: (at, delta) => changes.total(at, 'points', delta),
    move: (at, uid, move, delta) => changes.keyed(at, 'deliverables', `${uid}:${move}`, delta),
  });
  return changes;
}

/** A day's document as it was when the batch first touched it, and the values the batch's events changed, as they now are. */
interface GatheredDay {
  doc: DayDoc;
  totals: Map<TotalSeries, number>;
  split: Map<SplitSeries, Map<string, number>>;
  /** Position of the last event added: a redelivery at or before it is skipped, as against the document's. */
  appliedAt: number;
}

/** A player's document of active days as it was when the batch first touched it, and the days it adds. */
interface GatheredPlayer {
  doc: ActivePlayerDoc | null;
  added: Map<string, number>;
}

/**
 * What the events applied to a store add up to since the projector last wrote to it: each day's
 * and each player's document is then written once per batch of events, not copied and replaced
 * for every event (a day's totals and keyed values, a player's days, were most of the
 * projector's cost). Applies and writes of one store run one at a time, in order: the runner
 * may write checkpoints while an event is being applied, and a write must see whole events.
 */
class Gathered {
  private readonly days = new Map<string, GatheredDay>();
  private readonly players = new Map<string, GatheredPlayer>();
  private queue: Promise<unknown> = Promise.resolve();

  serially(work: (gathered: Gathered) => Promise<void>): Promise<void> {
    const done = this.queue.then(() => work(this));
    this.queue = done.catch(() => undefined);
    return done;
  }

  /**
   * Marks a player active on a day; true when this action is the one that made them so (a
   * redelivery of it included), so the day counts them.
   */
  async becameActive(store: ReadStore, day: string, playerId: string, position: number): Promise<boolean> {
    let player = this.players.get(playerId);
    if (!player) {
      const doc = await store
        .collection<ActivePlayerDoc>(ANALYTICS_COLLECTIONS.activePlayers)
        .findOne({ _id: playerId });
      player = { doc, added: new Map() };
      this.players.set(playerId, player);
    }
    const at = player.added.get(day) ?? player.doc?.days[day];
    if (at !== undefined) return at === position;
    player.added.set(day, position);
    return true;
  }

  /** Adds an event's changes to the days it touches, but to a day that has it already. */
  async add(store: ReadStore, changes: DayChanges, position: number): Promise<void> {
    for (const [day, { totals, split }] of changes.days) {
      let gathered = this.days.get(day);
      if (!gathered) {
        const doc = (await store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).findOne({ _id: day })) ?? emptyDay(day);
        gathered = { doc, totals: new Map(), split: new Map(), appliedAt: doc.appliedAt };
        this.days.set(day, gathered);
      }
      if (position <= gathered.appliedAt) continue;
      gathered.appliedAt = position;
      // Running values, each event's delta added to them in turn: amounts are rounded at each
      // addition, so summing a batch's deltas first would make a total depend on where batches end.
      for (const [series, delta] of totals)
        gathered.totals.set(series, addAmounts(gathered.totals.get(series) ?? gathered.doc.totals[series], delta));
      for (const [series, deltas] of split) {
        let values = gathered.split.get(series);
        if (!values) gathered.split.set(series, (values = new Map()));
        for (const [key, delta] of deltas)
          values.set(key, addAmounts(values.get(key) ?? valueOf(gathered.doc.split[series] ?? [], key), delta));
      }
    }
  }

  /**
   * Writes each document the gathered events changed, once, and forgets it once written: after a
   * failed write, what is left is written by the next.
   */
  async write(store: ReadStore): Promise<void> {
    const players = store.collection<ActivePlayerDoc>(ANALYTICS_COLLECTIONS.activePlayers);
    for (const [playerId, { doc, added }] of this.players) {
      // Built anew, not changed: the runner's batch hands out the documents it keeps.
      if (added.size > 0)
        await players.replaceOne(
          { _id: playerId },
          { _id: playerId, days: { ...doc?.days, ...Object.fromEntries(added) } },
          { upsert: true },
        );
      this.players.delete(playerId);
    }
    const days = store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days);
    for (const [day, { doc, totals, split, appliedAt }] of this.days) {
      if (appliedAt > doc.appliedAt) {
        const next: DayDoc = { ...doc, totals: { ...doc.totals }, split: { ...doc.split }, appliedAt };
        for (const [series, value] of totals) next.totals[series] = value;
        for (const [series, values] of split) next.split[series] = withValues(doc.split[series] ?? [], values);
        await days.replaceOne({ _id: day }, next, { upsert: true });
      }
      this.days.delete(day);
    }
  }
}

/** Each store's gathered changes, keyed by the store object as its time zone is. */
const gathereds = new WeakMap<ReadStore, Gathered>();

function gatheredOf(store: ReadStore): Gathered {
  let gathered = gathereds.get(store);
  if (!gathered) gathereds.set(store, (gathered = new Gathered()));
  return gathered;
}

/** Where `key` is, or would go, among keyed values in key order. */
function indexOf(values: KeyedValues, key: string): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle][0] < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function valueOf(values: KeyedValues, key: string): number {
  const at = indexOf(values, key);
  return at < values.length && values[at][0] === key ? values[at][1] : 0;
}

/**
 * Keyed values (in key order, none at 0) with some set anew: a copy sharing the pairs that do not
 * change, so a batch costs its few keys, not a rebuild of the day's values.
 */
function withValues(values: KeyedValues, changed: ReadonlyMap<string, number>): KeyedValues {
  const next = values.slice();
  for (const [key, value] of changed) {
    const at = indexOf(next, key);
    const found = at < next.length && next[at][0] === key;
    if (found && value === 0) next.splice(at, 1);
    else if (found) next[at] = [key, value];
    else if (value !== 0) next.splice(at, 0, [key, value]);
  }
  return next;
}
