import type { Catalog, Deliverable, DeliverableGrant } from '../domain/catalog/schema';
import type { LabelledEntry } from '../domain/catalog/types';
import { DELIVERABLE_TYPE_CODE } from '../domain/events/common';
import type { VIEW_COLLECTIONS } from '../shared/read-models/catalog-views';
import { type ViewDocument } from '../shared/read-models/catalog-views';
import { epochMsToLocalIso, localIsoToEpochMs } from '../domain/time/local-time';

/** `actionObjects[].type` codes: 1 Number, 2 String, 3 Boolean, 4 Date, 5 Array. */
const ACTION_OBJECT_TYPE = { Number: 1, String: 2, Boolean: 3, Date: 4, Array: 5 } as const;

type ViewKind = keyof typeof VIEW_COLLECTIONS;

/** The admin views of a published catalog, per collection. */
export function catalogViews(catalog: Catalog, publishedAt: number): Record<ViewKind, ViewDocument[]> {
  const deliverables = new Map(catalog.deliverables.map((d) => [d.uid, d]));
  const delivered = (g: DeliverableGrant) => deliverableItem(deliverables.get(g.deliverable)!, g.amount);
  const published = epochMsToLocalIso(publishedAt, catalog.settings.timezone);
  const doc = (
    uid: string,
    order: number,
    isActive: boolean,
    list: Record<string, unknown>,
    detail: Record<string, unknown> = list,
  ): ViewDocument => ({ _id: uid, order, isActive, list, detail });

  return {
    actions: catalog.actions.map((a, i) => {
      const common = {
        uid: a.uid,
        identifier: a.identifier,
        points: a.points,
        pointGap: a.pointGap,
        cost: a.cost,
        costLabel: a.costDeliverable ? deliverables.get(a.costDeliverable)!.label : null,
        createDate: a.createDate ?? published,
        imageName: a.imageName,
        isUserAttribute: a.isUserAttribute,
        isActive: a.isActive,
        caps: a.caps,
      };
      const actionObjects = a.actionObjects.length
        ? a.actionObjects.map((o) => ({
            label: o.label,
            actionUId: a.uid,
            type: ACTION_OBJECT_TYPE[o.type],
            typeLabel: o.type,
          }))
        : null;
      return doc(
        a.uid,
        i,
        a.isActive,
        { ...common, actionObjects },
        { ...common, actionObjects, deliverables: a.deliverables.length ? a.deliverables.map(delivered) : null },
      );
    }),
    badges: catalog.badges.map((b, i) => {
      const list = { ...badgeFields(b), type: b.type, segment: b.segment ?? null };
      return doc(b.uid, i, b.isActive, list, {
        ...list,
        conditions: conditionViews(b),
        deliverables: b.deliverables.map(delivered),
      });
    }),
    triggers: catalog.triggers.map((t, i) => {
      const list = {
        ...badgeFields(t),
        type: t.type,
        randomizedPrize: t.randomizedPrize,
        limited: t.limited,
        segment: t.segment ?? null,
      };
      return doc(t.uid, i, t.isActive, list, {
        ...list,
        conditions: conditionViews(t),
        deliverables: t.deliverables.map(delivered),
      });
    }),
    levels: [...catalog.levels]
      .sort((a, b) => a.level - b.level)
      .map((l, i) =>
        doc(l.uid, i, l.isActive, {
          uid: l.uid,
          label: l.label,
          level: l.level,
          description: l.description ?? '',
          target: l.target,
          imageName: l.imageName,
          isActive: l.isActive,
        }),
      ),
    ranks: catalog.rankSets.map((r, i) =>
      doc(r.uid, i, r.isActive, {
        uid: r.uid,
        label: r.label,
        isActive: r.isActive,
        ranks: r.ranks.map((k) => ({ rank: k.rank, label: k.label, times: k.times, sum: k.sum, points: k.points })),
      }),
    ),
    leaderboards: catalog.leaderboards.map((l, i) =>
      doc(l.uid, i, l.isActive, {
        uid: l.uid,
        label: l.label,
        description: l.description ?? '',
        startDate: l.startDate,
        endDate: l.endDate,
        imageName: l.imageName,
        randomizedPrize: l.randomizedPrize,
        limited: l.limited,
        isActive: l.isActive,
        type: l.type,
        period: l.season ? PERIOD_OF_SEASON[l.season] : null,
        metric: l.metric,
        scope: l.scope,
        aggregate: l.aggregate,
      }),
    ),
    stores: catalog.stores.map((s, i) => {
      const store = {
        uid: s.uid,
        label: s.label,
        description: s.description,
        startDate: s.startDate,
        endDate: s.endDate,
        isActive: s.isActive,
        imageName: s.imageName,
        storeBundles: s.bundles.map((b) => {
          const currency = b.costDeliverable ? deliverables.get(b.costDeliverable)! : null;
          return {
            uid: b.uid,
            label: b.label,
            description: b.description,
            cost: b.cost,
            costDeliverableUId: b.costDeliverable,
            costLabel: currency?.label ?? null,
            imageName: b.imageName,
            costImageName: currency?.imageName ?? null,
            initialStock: b.initialStock,
            remainingStock: b.initialStock,
            storeBundleContents: b.contents.map((c) => {
              const d = deliverables.get(c.deliverable)!;
              return {
                deliverableUid: d.uid,
                label: d.label,
                amount: c.amount,
                type: DELIVERABLE_TYPE_CODE[d.type],
                imageName: d.imageName,
              };
            }),
          };
        }),
      };
      return doc(s.uid, i, s.isActive, store);
    }),
    streaks: catalog.streaks.map((s, i) => {
      const list = { ...labelledFields(s), period: s.period, freezes: s.freezes, segment: s.segment ?? null };
      return doc(s.uid, i, s.isActive, list, {
        ...list,
        conditions: s.conditions.map(({ action, filters }) => ({ action, filters })),
        milestones: s.milestones.map((m) => ({
          length: m.length,
          points: m.points,
          deliverables: m.deliverables.map(delivered),
        })),
      });
    }),
    missions: catalog.missions.map((m, i) => {
      const list = {
        ...labelledFields(m),
        startDate: m.startDate,
        endDate: m.endDate,
        requires: m.requires,
        ordered: m.ordered,
        repeat: REPEAT_PERIOD[m.repeat],
        points: m.points,
        segment: m.segment ?? null,
      };
      return doc(m.uid, i, m.isActive, list, {
        ...list,
        steps: m.steps.map(({ uid, label, condition: { action, filters, challenge } }) => ({
          uid,
          label,
          condition: { action, filters, challenge },
        })),
        deliverables: m.deliverables.map(delivered),
      });
    }),
    currencies: catalog.deliverables
      .filter((d) => d.kind === 'Currency')
      .map((d, i) => doc(d.uid, i, d.isActive, { ...labelledFields(d), expiry: d.expiry, earnCaps: d.earnCaps })),
    // The detail keeps the conditions: what GET /v1/admin/segments counts the players of. A version
    // published before segments existed has none.
    segments: (catalog.segments ?? []).map((s, i) =>
      doc(s.uid, i, true, { uid: s.uid, label: s.label }, { uid: s.uid, label: s.label, conditions: s.conditions }),
    ),
    // The window as instants too: GET /v1/admin/experiments tells Scheduled, Running and Ended by them.
    experiments: (catalog.experiments ?? []).map((e, i) => {
      const at = (iso: string | null) => (iso ? localIsoToEpochMs(iso, catalog.settings.timezone) : null);
      return doc(e.uid, i, true, {
        uid: e.uid,
        label: e.label,
        segment: e.segment,
        startDate: e.startDate,
        endDate: e.endDate,
        startMs: at(e.startDate),
        endMs: at(e.endDate),
        variants: e.variants.map((v) => ({ uid: v.uid, weight: v.weight, patch: v.patch })),
      });
    }),
  };
}

/** Periods as the catalog reference spells them (Day, Week, Month), whatever spelling the file used. */
const PERIOD_OF_SEASON = { daily: 'Day', weekly: 'Week', monthly: 'Month' } as const;
const REPEAT_PERIOD = { None: 'None', Daily: 'Day', Weekly: 'Week' } as const;

function labelledFields(e: LabelledEntry) {
  return { uid: e.uid, label: e.label, description: e.description, imageName: e.imageName, isActive: e.isActive };
}

function badgeFields(b: Catalog['badges'][number] | Catalog['triggers'][number]) {
  return {
    uid: b.uid,
    label: b.label,
    points: b.points,
    description: b.description,
    startDate: b.startDate,
    endDate: b.endDate,
    requiredBadgeUId: b.requiredBadge,
    rankSetUId: b.rankSet,
    imageName: b.imageName,
    isActive: b.isActive,
  };
}

/** What earns a badge or trigger, as the catalog states it: the action, its filters, the challenge. */
function conditionViews(b: Catalog['badges'][number] | Catalog['triggers'][number]) {
  return b.conditions.map(({ action, filters, challenge }) => ({ action, filters, challenge }));
}

/** Deliverables in detail views; `type` as a string: Points, Prize, Content or Notification. */
function deliverableItem(d: Deliverable, amount: number) {
  return { label: d.label, uid: d.uid, imageName: d.imageName, amount, type: d.type };
}
