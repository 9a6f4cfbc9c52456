/** The analytics projector: daily buckets of what the players did, in the catalog's time zone. */
import { addAmounts } from '../shared/domain/amount';
import type { DomainEvent, Recorded } from '../shared/domain/events';
import type { Grant } from '../shared/domain/events/common';
import {
  ANALYTICS_COLLECTIONS,
  emptyDay,
  type ActivePlayerDoc,
  type DayDoc,
  type DeliverableMove,
  type KeyedValues,
  type SplitSeries,
  type TotalSeries,
} from '../shared/read-models/analytics';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { seasonPeriod } from '../shared/domain/time/season';
import type { Projector } from './runner';

/** What one event adds to the days it touches: per day, the changes of totals and of keyed values. */
class DayChanges {
  readonly days = new Map<string, { totals: Map<TotalSeries, number>; split: Map<SplitSeries, Map<string, number>> }>();

  constructor(private readonly timezone: string) {}

  private day(ms: number) {
    const day = seasonPeriod(ms, 'daily', this.timezone);
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

  deliverables(ms: number, grants: readonly Grant[], move: DeliverableMove, sign: 1 | -1 = 1): void {
    for (const g of grants) this.keyed(ms, 'deliverables', `${g.uid}:${move}`, sign * g.amount);
  }
}

/**
 * Per day of the catalog's time zone: actions processed (in all and per action), players active
 * (distinct), players registered, points earned less those taken back, deliverables granted,
 * spent, refunded and expired, badges and levels awarded, bundles bought, chests opened, reversals.
 *
 * An action, and all it earned, counts on the day of its `timestamp` (as leaderboards do). A
 * reversal leaves the action counted (it was processed) and takes back what was earned from the
 * day it was counted on: the action's points and deliverables, and each award it brings down from
 * the day of the action that earned it; it counts in `reversals`, and the cost it gives back in
 * `refunded`, on the day it was made. Levels stay counted as reached. Purchases, openings,
 * completions, cancellations and refunds count on the day they happened; an expired lot of a
 * currency on the day it expired.
 *
 * Idempotent under redelivery: a day document records the position of the last event applied to
 * it and skips events up to it; a player's days of activity record the action that made each, so
 * a redelivery of that action counts the player again where the day had not taken it yet.
 * Replaying events under another time zone would not be idempotent, hence `checkpointAround`
 * CatalogPublished.
 */
export const analyticsProjector: Projector = {
  name: 'analytics',
  collections: Object.values(ANALYTICS_COLLECTIONS),
  handles: new Set([
    'CatalogPublished',
    'PlayerRegistered',
    'ActionProcessed',
    'ActionReversed',
    'ChestOpened',
    'BundlePurchased',
    'ProvisionCompleted',
    'ProvisionFailed',
    'ProvisionRefunded',
    'CurrencyExpired',
  ]),
  checkpointAround: new Set(['CatalogPublished']),
  async apply(event, store) {
    if (event.type === 'CatalogPublished') {
      const timezone = event.data.catalog.settings.timezone;
      await store
        .collection(ANALYTICS_COLLECTIONS.settings)
        .replaceOne({ _id: 'timezone' }, { _id: 'timezone', timezone }, { upsert: true });
      timezones.set(store, timezone);
      return;
    }
    const timezone = await timezoneOf(store);
    const changes = changesOf(event, new DayChanges(timezone));
    if (event.type === 'ActionProcessed') {
      const e = event.data;
      if (await becameActive(store, seasonPeriod(e.timestamp, 'daily', timezone), e.playerId, event.position))
        changes.total(e.timestamp, 'active-players', 1);
    }
    await applyChanges(store, changes, event.position);
  },
  reset(store) {
    timezones.delete(store);
  },
};

/** The time zone of each read store, as its settings hold it; keyed by the store object, as the leaderboards' boards are. */
const timezones = new WeakMap<ReadStore, string>();

async function timezoneOf(store: ReadStore): Promise<string> {
  let timezone = timezones.get(store);
  if (timezone === undefined) {
    const doc = await store
      .collection<{ _id: string; timezone: string }>(ANALYTICS_COLLECTIONS.settings)
      .findOne({ _id: 'timezone' });
    timezone = doc?.timezone ?? 'UTC';
    timezones.set(store, timezone);
  }
  return timezone;
}

type Counted = Exclude<DomainEvent['type'], 'CatalogPublished'>;

function changesOf(event: Recorded<Extract<DomainEvent, { type: Counted }>>, changes: DayChanges): DayChanges {
  switch (event.type) {
    case 'PlayerRegistered': {
      const e = event.data;
      changes.total(e.registeredAt, 'new-players', 1);
      for (const l of e.levels) {
        changes.keyed(e.registeredAt, 'levels', l.uid, 1);
        changes.deliverables(e.registeredAt, l.grants, 'granted');
      }
      break;
    }
    case 'ActionProcessed': {
      const e = event.data;
      const at = e.timestamp;
      changes.total(at, 'actions', 1);
      changes.keyed(at, 'actions-by-action', e.actionName, 1);
      changes.total(at, 'points', e.result.earnedPoints);
      changes.deliverables(at, e.actionGrants, 'granted');
      for (const a of e.awards) {
        if (a.kind === 'badge') changes.keyed(at, 'badges', a.uid, 1);
        changes.deliverables(at, a.grants, 'granted');
      }
      for (const l of e.levels) {
        changes.keyed(at, 'levels', l.uid, 1);
        changes.deliverables(at, l.grants, 'granted');
      }
      if (e.cost) changes.keyed(at, 'deliverables', `${e.cost.deliverableUid}:spent`, e.cost.amount);
      break;
    }
    case 'ActionReversed': {
      const e = event.data;
      changes.total(e.reversedAt, 'reversals', 1);
      changes.total(e.timestamp, 'points', -e.actionPoints);
      changes.deliverables(e.timestamp, e.actionGrants, 'granted', -1);
      // A lost level has no day of its own: what it granted comes off the reversed action's day.
      for (const l of e.revokedLevels) changes.deliverables(e.timestamp, l.grants, 'granted', -1);
      for (const a of e.revokedAwards) {
        changes.total(a.awardedAt, 'points', -a.points);
        if (a.kind === 'badge') changes.keyed(a.awardedAt, 'badges', a.uid, -1);
        changes.deliverables(a.awardedAt, a.grants, 'granted', -1);
      }
      if (e.refund) changes.keyed(e.reversedAt, 'deliverables', `${e.refund.deliverableUid}:refunded`, e.refund.amount);
      break;
    }
    case 'ChestOpened': {
      const e = event.data;
      const at = e.openedAt;
      changes.total(at, 'chest-openings', 1);
      changes.total(at, 'points', e.effects.points);
      changes.keyed(at, 'deliverables', `${e.chestDeliverableUid}:spent`, 1);
      for (const p of e.prizes)
        if (p.reward !== 'points') changes.keyed(at, 'deliverables', `${p.reward}:granted`, p.amount);
      for (const l of e.levels) {
        changes.keyed(at, 'levels', l.uid, 1);
        changes.deliverables(at, l.grants, 'granted');
      }
      break;
    }
    case 'BundlePurchased': {
      const e = event.data;
      changes.keyed(e.purchasedAt, 'purchases', e.bundleUid, 1);
      if (e.cost.deliverableUid !== null && e.cost.amount > 0)
        changes.keyed(e.purchasedAt, 'deliverables', `${e.cost.deliverableUid}:spent`, e.cost.amount);
      if (e.status === 'Completed') changes.deliverables(e.purchasedAt, e.contents, 'granted');
      break;
    }
    case 'ProvisionCompleted':
      changes.deliverables(event.data.completedAt, event.data.contents, 'granted');
      break;
    case 'CurrencyExpired':
      // On the day the lot expired, however late its job recorded it.
      for (const lot of event.data.lots)
        changes.keyed(lot.expiresAt, 'deliverables', `${lot.deliverableUid}:expired`, lot.amount);
      break;
    case 'ProvisionFailed':
    case 'ProvisionRefunded': {
      const e = event.data;
      const at = event.type === 'ProvisionFailed' ? event.data.failedAt : event.data.refundedAt;
      if (e.returned.deliverableUid !== null && e.returned.amount > 0)
        changes.keyed(at, 'deliverables', `${e.returned.deliverableUid}:refunded`, e.returned.amount);
      break;
    }
  }
  return changes;
}

/**
 * Marks a player active on a day; true when this action is the one that made them so (a
 * redelivery of it included), so the day counts them.
 */
async function becameActive(store: ReadStore, day: string, playerId: string, position: number): Promise<boolean> {
  const players = store.collection<ActivePlayerDoc>(ANALYTICS_COLLECTIONS.activePlayers);
  const doc = await players.findOne({ _id: playerId });
  const at = doc?.days[day];
  if (at !== undefined) return at === position;
  await players.replaceOne(
    { _id: playerId },
    { _id: playerId, days: { ...doc?.days, [day]: position } },
    { upsert: true },
  );
  return true;
}

async function applyChanges(store: ReadStore, changes: DayChanges, position: number): Promise<void> {
  const days = store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days);
  for (const [day, { totals, split }] of changes.days) {
    // Read, then written whole: the projector is the only writer.
    const doc = (await days.findOne({ _id: day })) ?? emptyDay(day);
    if (position <= doc.appliedAt) continue;
    // Built anew, not changed: the runner's batch hands out the documents it keeps.
    const next: DayDoc = { ...doc, totals: { ...doc.totals }, split: { ...doc.split }, appliedAt: position };
    for (const [series, delta] of totals) next.totals[series] = addAmounts(doc.totals[series], delta);
    for (const [series, deltas] of split) next.split[series] = withDeltas(doc.split[series] ?? [], deltas);
    await days.replaceOne({ _id: day }, next, { upsert: true });
  }
}

/**
 * Keyed values (in key order, none at 0) with deltas added: a copy sharing the pairs that do not
 * change, so an event costs its few keys, not a rebuild of the day's values.
 */
function withDeltas(values: KeyedValues, deltas: ReadonlyMap<string, number>): KeyedValues {
  const next = values.slice();
  for (const [key, delta] of deltas) {
    let low = 0;
    let high = next.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (next[middle][0] < key) low = middle + 1;
      else high = middle;
    }
    const found = low < next.length && next[low][0] === key;
    const value = addAmounts(found ? next[low][1] : 0, delta);
    if (found && value === 0) next.splice(low, 1);
    else if (found) next[low] = [key, value];
    else if (value !== 0) next.splice(low, 0, [key, value]);
  }
  return next;
}
