/** The shapes of the catalog views, leaderboards and stores GET /v1/admin/* answers (routes.ts). */
import { z } from 'zod';
import { FILTER_OPS } from '../../domain/catalog/types';
import { nullableString } from '../../shared/adapters/http/wire-shapes';

const localIso = z.string().describe('ISO 8601 local date-time, in the catalog time zone');

/** The `segment` of a badge, trigger, streak or mission. */
const segmentRef = nullableString.describe(
  'the segment uid (GET /v1/admin/segments): it applies only to the players in it; null: everyone',
);

const capPeriod = z.enum(['Day', 'Week', 'Month']);

const deliverableItemShape = z.object({
  label: z.string(),
  uid: z.string(),
  imageName: nullableString,
  amount: z.number(),
  type: z.enum(['Points', 'Prize', 'Content', 'Notification']),
});

const actionCommon = {
  uid: z.string(),
  identifier: z.string(),
  points: z.number(),
  pointGap: z.number().describe('seconds'),
  cost: z.number(),
  costLabel: nullableString,
  createDate: localIso,
  imageName: nullableString,
  isUserAttribute: z.boolean(),
  isActive: z.boolean(),
  caps: z
    .array(z.object({ period: capPeriod, times: z.number().int().nullable(), points: z.number().nullable() }))
    .describe('what a player may do of it per period of their calendar: times or points, the other null'),
  actionObjects: z
    .array(
      z.object({
        label: z.string(),
        actionUId: z.string(),
        type: z.number().int().describe('1 Number, 2 String, 3 Boolean, 4 Date, 5 Array'),
        typeLabel: z.string(),
      }),
    )
    .nullable(),
};
export const actionShape = z.object(actionCommon);
export const actionDetailShape = z.object({ ...actionCommon, deliverables: z.array(deliverableItemShape).nullable() });

const badgeCommon = {
  uid: z.string(),
  label: z.string(),
  points: z.number(),
  description: nullableString,
  startDate: localIso.nullable(),
  endDate: localIso.nullable(),
  requiredBadgeUId: nullableString,
  rankSetUId: nullableString.describe('the rank set of a Ranked one (GET /v1/admin/ranks)'),
  imageName: nullableString,
  isActive: z.boolean(),
  type: z.enum(['OneTimeOnly', 'Repeatable', 'Ranked']),
  segment: segmentRef,
};
/** The filters of a condition on an action's details; every one must hold. */
const filtersShape = z
  .array(z.object({ name: z.string(), op: z.enum(FILTER_OPS), value: z.union([z.string(), z.array(z.string())]) }))
  .describe("on the action's details; every one must hold");
/** A condition of a badge, trigger or mission step, as the catalog states it (docs/catalog.md, "Conditions"). */
const conditionShape = z.object({
  action: z.string().describe('the action it counts'),
  filters: filtersShape,
  challenge: z.object({
    times: z.number().int().nullable(),
    sum: z.object({ field: z.string(), atLeast: z.number() }).nullable(),
    withinDays: z.number().nullable(),
    between: z.object({ start: localIso, end: localIso }).nullable(),
  }),
});
export const badgeShape = z.object(badgeCommon);
export const badgeDetailShape = z.object({
  ...badgeCommon,
  conditions: z.array(conditionShape),
  deliverables: z.array(deliverableItemShape),
});
const triggerCommon = { ...badgeCommon, randomizedPrize: z.boolean(), limited: z.boolean() };
export const triggerShape = z.object(triggerCommon);
export const triggerDetailShape = z.object({
  ...triggerCommon,
  conditions: z.array(conditionShape),
  deliverables: z.array(deliverableItemShape),
});

export const levelShape = z.object({
  uid: z.string(),
  label: z.string(),
  level: z.number(),
  description: z.string(),
  target: z.number(),
  imageName: nullableString,
  isActive: z.boolean(),
});
export const rankSetShape = z.object({
  uid: z.string(),
  label: z.string(),
  isActive: z.boolean(),
  ranks: z
    .array(
      z.object({
        rank: z.number().int(),
        label: z.string(),
        times: z.number().int().nullable(),
        sum: z.number().nullable(),
        points: z.number(),
      }),
    )
    .describe('in ascending order; each reached at its times or its sum (exactly one is set)'),
});

const leaderboardCommon = {
  uid: z.string(),
  label: z.string(),
  description: z.string(),
  startDate: localIso.nullable(),
  endDate: localIso.nullable(),
  imageName: nullableString,
  randomizedPrize: z.boolean(),
  limited: z.boolean(),
  isActive: z.boolean(),
  type: z.number().int().describe('0 Standard, 1 Season'),
  period: capPeriod.nullable().describe("a Season board's period (its season); null: all-time"),
  metric: z
    .union([z.literal('points'), z.object({ action: z.string() })])
    .describe('what the standings count: points, or the times an action (by identifier) was processed'),
  scope: nullableString.describe(
    'the player attribute whose values have separate standings (read them with ?scope=<value>); null: one standings',
  ),
  aggregate: z.enum(['sum']).nullable().describe("sum: the standings rank the scope's values by their players' total"),
};
export const leaderboardShape = z.object(leaderboardCommon).catchall(z.unknown());
const standingShape = z.object({
  rank: z.number().int(),
  points: z.number(),
  userId: z.string(),
  username: z.string(),
  imageName: nullableString,
});
/** A row of an aggregate board: a value of its scope, by the total of its players. */
const scopeStandingShape = z.object({
  rank: z.number().int(),
  points: z.number(),
  scope: z.string().describe("the value of the board's scope"),
});
export const leaderboardDetailShape = z
  .object({
    ...leaderboardCommon,
    standings: z
      .array(z.union([standingShape, scopeStandingShape]))
      .describe('players; on an aggregate board, the values of its scope'),
    player: standingShape.nullable().optional().describe('with ?playerId: that player, even outside the top'),
    around: z
      .array(standingShape)
      .optional()
      .describe(
        'with ?playerId and ?around=N: that player with up to N standings above and N below, in standings order; [] when the player has no standing',
      ),
  })
  .catchall(z.unknown());

export const storeShape = z.object({
  uid: z.string(),
  label: z.string(),
  description: nullableString,
  startDate: localIso.nullable(),
  endDate: localIso.nullable(),
  isActive: z.boolean(),
  imageName: nullableString,
  storeBundles: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      description: nullableString,
      cost: z.number(),
      costDeliverableUId: nullableString,
      costLabel: nullableString,
      imageName: nullableString,
      costImageName: nullableString,
      initialStock: z.number().describe('0 = unlimited'),
      remainingStock: z.number().describe('0 when unlimited (initialStock 0)'),
      storeBundleContents: z.array(
        z.object({
          deliverableUid: z.string(),
          label: z.string(),
          amount: z.number(),
          type: z.number().int(),
          imageName: nullableString,
        }),
      ),
    }),
  ),
});

const labelledCommon = {
  uid: z.string(),
  label: z.string(),
  description: nullableString,
  imageName: nullableString,
  isActive: z.boolean(),
};

const streakCommon = {
  ...labelledCommon,
  period: z.enum(['Day', 'Week']),
  freezes: z
    .object({ max: z.number().int(), earnEvery: z.number().int() })
    .nullable()
    .describe('at most max held, one earned every earnEvery periods in a row; null: none'),
  segment: segmentRef,
};
export const streakShape = z.object(streakCommon);
export const streakDetailShape = z.object({
  ...streakCommon,
  conditions: z
    .array(z.object({ action: z.string(), filters: filtersShape }))
    .describe('an action meeting any one counts for its period'),
  milestones: z.array(
    z.object({ length: z.number().int(), points: z.number(), deliverables: z.array(deliverableItemShape) }),
  ),
});

const missionCommon = {
  ...labelledCommon,
  startDate: localIso.nullable(),
  endDate: localIso.nullable(),
  requires: z
    .object({ badge: nullableString, level: z.number().int().nullable() })
    .describe('a badge uid and a level number the player must hold; either or both null'),
  ordered: z.boolean(),
  repeat: z.enum(['None', 'Day', 'Week']).describe('when progress starts over: never, each day or each ISO week'),
  points: z.number(),
  segment: segmentRef,
};
export const missionShape = z.object(missionCommon);
export const missionDetailShape = z.object({
  ...missionCommon,
  steps: z.array(z.object({ uid: z.string(), label: z.string(), condition: conditionShape })),
  deliverables: z.array(deliverableItemShape),
});

export const currencyShape = z.object({
  ...labelledCommon,
  expiry: z
    .object({ afterDays: z.number().int().nullable(), endOf: capPeriod.nullable() })
    .nullable()
    .describe('when each amount granted expires (exactly one of afterDays and endOf); null: never'),
  earnCaps: z
    .array(z.object({ period: capPeriod, amount: z.number() }))
    .describe('what processing actions may grant of it per period of the player calendar'),
});

const rangeShape = z
  .object({ min: z.number().nullable(), max: z.number().nullable() })
  .describe('inclusive; either may be null, not both');
/** A segment's condition as the catalog states it (docs/catalog.md, "Segments"): exactly one of these forms. */
const segmentConditionShape = z.union([
  z.object({ attribute: z.string(), in: z.array(z.string()) }).describe("the player's attribute is one of the values"),
  z.object({ level: rangeShape }).describe('the highest level number reached (0 before any) is in the range'),
  z.object({ badge: z.string() }).describe('the player holds this badge'),
  z.object({ points: rangeShape }).describe("the player's total points are in the range"),
]);

export const segmentShape = z.object({
  uid: z.string(),
  label: z.string(),
  conditions: z.array(segmentConditionShape).describe('every one must hold for a player to be in the segment'),
  players: z.number().int().describe('the registered players in the segment now, by the read models'),
});
