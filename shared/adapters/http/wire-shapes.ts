/**
 * The response shapes of the API, as zod schemas: the
 * OpenAPI document is generated from them, and tests parse real responses with them so the
 * document cannot drift from what the service sends.
 */
import { z } from 'zod';
import { FILTER_OPS } from '../../domain/catalog/types';
import { actionResultSchema } from '../../domain/events/player-events';

const nullableString = z.string().nullable();
const localIso = z.string().describe('ISO 8601 local date-time, in the catalog time zone');

export const deliverableItemShape = z.object({
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
};
/** A condition of a badge or trigger, as the catalog states it (docs/catalog.md, "Conditions"). */
const conditionShape = z.object({
  action: z.string().describe('the action it counts'),
  filters: z
    .array(z.object({ name: z.string(), op: z.enum(FILTER_OPS), value: z.union([z.string(), z.array(z.string())]) }))
    .describe("on the action's details; every one must hold"),
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
  scope: nullableString.describe(
    'the player attribute whose values have separate standings (read them with ?scope=<value>); null: one standings',
  ),
  aggregate: z.enum(['sum']).nullable().describe("sum: the standings rank the scope's values by their players' total"),
};
export const leaderboardShape = z.object(leaderboardCommon).catchall(z.unknown());
export const standingShape = z.object({
  rank: z.number().int(),
  points: z.number(),
  userId: z.string(),
  username: z.string(),
  imageName: nullableString,
});
/** A row of an aggregate board: a value of its scope, by the total of its players. */
export const scopeStandingShape = z.object({
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

export const actionResultShape = actionResultSchema.extend({
  reversed: z.literal(true).optional().describe('get-response only: the action was reversed'),
});
export const processResultShape = actionResultShape.extend({
  nested: z
    .array(z.union([actionResultShape, z.object({ code: z.number().int(), data: z.string() })]))
    .optional()
    .describe('results of the nested `actions`, in order'),
});

export const profileShape = z.object({
  playerId: z.string(),
  username: z.string().describe('as registered: given to POST /v1/player/create, else the playerId'),
  points: z.number(),
  level: z
    .object({ uid: z.string(), label: z.string(), level: z.number(), target: z.number(), imageName: nullableString })
    .nullable(),
  badges: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      type: z.string(),
      count: z.number().int(),
      rank: z.object({ rank: z.number().int(), label: z.string() }).nullable(),
    }),
  ),
  balances: z
    .array(z.object({ deliverableUid: z.string(), label: z.string(), type: z.number().int(), amount: z.number() }))
    .describe('what the player holds, without the lots of currencies that have expired'),
  expiring: z
    .array(
      z.object({
        deliverableUid: z.string(),
        amount: z.number(),
        expiresAt: z.number().int().describe('Unix ms'),
      }),
    )
    .describe('the next 10 lots of currencies that expire (catalog expiry), soonest first'),
  timeZone: z
    .string()
    .describe(
      "the IANA zone of the player's calendar (streaks, caps): the player's own, or the catalog's settings.timezone",
    ),
  attributes: z.record(z.string(), z.string()).describe("the player's attributes (leaderboard scopes)"),
  caps: z
    .array(
      z.object({
        kind: z.enum(['times', 'points', 'earn']),
        of: z.string().describe('the action identifier (times, points) or the deliverable uid (earn)'),
        period: z.enum(['Day', 'Week', 'Month']),
        periodName: z
          .string()
          .describe('the current period, named like leaderboard seasons (2026-11-25, 2026-W48, 2026-11)'),
        used: z.number(),
        limit: z.number(),
      }),
    )
    .describe("the caps with a use in their current period of the player's calendar"),
});

export const transactionShape = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  cost: z.number(),
  costDeliverableUid: nullableString,
  referenceType: z.enum(['Store', 'Action']),
  status: z.enum(['Pending', 'Completed', 'Refunded', 'Failed']),
  failureReason: z.enum(['Cancelled', 'TimedOut']).nullable(),
  createDate: z.number().int().describe('Unix ms'),
  updateDate: z.number().int().describe('Unix ms'),
});

/** One of a player's provisions in their transaction history: the Transaction, with what it bought and cost. */
export const transactionHistoryShape = transactionShape.extend({
  costLabel: nullableString,
  bundleUid: nullableString.describe("the bundle bought; null for an action's cost"),
  bundleLabel: nullableString,
  referenceId: nullableString.describe('the action whose cost it is; null for a purchase'),
  contents: z
    .array(z.object({ deliverableUid: z.string(), label: z.string(), type: z.number().int(), amount: z.number() }))
    .describe('what the purchase grants (Pending) or granted'),
});

export const buyResultShape = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  cost: z.number(),
  costLabel: nullableString,
  costDeliverableUid: nullableString,
  status: z.enum(['Pending', 'Completed']),
  updateDate: z.number().int().describe('Unix ms'),
  deliverables: z.array(
    z.object({
      amount: z.number(),
      label: z.string(),
      type: z.number().int(),
      imageName: nullableString,
      details: z.array(z.object({ label: z.string(), value: z.string() })).nullable(),
    }),
  ),
});

const scalingMode = z.enum(['None', 'PlayerLevel', 'Custom']);
export const ownedChestShape = z.object({
  chestDeliverableUid: z.string(),
  label: z.string(),
  imageName: nullableString,
  balance: z.number(),
  scalingMode,
  isActive: z.boolean(),
});
export const catalogChestShape = ownedChestShape.omit({ balance: true });
export const chestOpenShape = z.object({
  openingUid: z
    .string()
    .describe('this opening: trace it with GET /v1/audit/trace?openingUid=<it>&playerId=<the player>'),
  chestLabel: z.string(),
  scalingMode,
  playerLevel: z.number(),
  drawCount: z.number().int(),
  prizes: z.array(
    z
      .object({ label: z.string(), amount: z.number(), imageName: nullableString, type: z.number().int() })
      .catchall(z.unknown()),
  ),
});
export const chestPreviewShape = z.object({
  chestLabel: z.string(),
  scalingMode,
  drawCountMin: z.number().int(),
  drawCountMax: z.number().int(),
  contents: z.array(
    z.object({
      rewardLabel: z.string(),
      rewardImageName: nullableString,
      type: z.number().int(),
      amountMin: z.number(),
      amountMax: z.number(),
      probability: z.number().describe('raw draw weight'),
      weightPct: z
        .number()
        .describe(
          'the chance in percent (2 decimals) that one draw picks this entry at the stock left now: its weight over the weights of every entry a draw can pick, points and powerups included though not listed; 0 when out of stock',
        ),
      limited: z.boolean(),
      remainingStock: z.number().describe('-1 when unlimited'),
    }),
  ),
});
export const chestHistoryShape = z.object({
  openedAt: z.number().int(),
  chestLabel: z.string(),
  rewardLabel: z.string(),
  rewardImageName: nullableString,
  type: z.number().int(),
  amount: z.number(),
});

export const powerupShape = z.object({
  uid: z.string(),
  prizeLabel: z.string(),
  prizeImageName: nullableString,
  multiplier: z.number(),
  isActive: z.boolean(),
  isActivated: z.boolean(),
  isValid: z.boolean(),
  initialUseCount: z.number().int(),
  remainingUseCount: z.number().int(),
  powerupMaxUseCount: z.number().int().describe('0 = unlimited'),
  powerupTimeoutSeconds: z.number(),
  neverExpires: z.boolean(),
  activatedAt: z.number().int().nullable().describe('Unix seconds'),
  createdAt: z.number().int().describe('Unix seconds'),
  expiresAt: z.number().int().describe('Unix seconds; 0 when it never expires'),
  remainingSeconds: z.number().int().describe('-1 when it never expires'),
  targetPrizes: z.array(
    z.object({
      targetPrizeUid: z.string(),
      targetPrizeLabel: z.string(),
      targetPrizeImageName: nullableString,
      deliveryMethod: z.number().int(),
    }),
  ),
});

export const streakShape = z.object({
  streakUid: z.string(),
  label: z.string(),
  description: nullableString,
  imageName: nullableString,
  period: z.enum(['Day', 'Week']),
  length: z.number().int().describe('0 once breaksAt has passed'),
  longest: z.number().int(),
  lastPeriod: nullableString.describe(
    'the last period counted, named like leaderboard seasons (2026-11-25, 2026-W48); null without a run',
  ),
  freezes: z.number().int().describe('freezes held now'),
  breaksAt: z.number().int().nullable().describe('Unix ms at which the run ends unless extended; null without a run'),
});

export const missionShape = z.object({
  missionUid: z.string(),
  label: z.string(),
  status: z
    .enum(['Locked', 'InProgress', 'Completed'])
    .describe('Locked: the player lacks the badge or level the mission requires; Completed: in the current period'),
  steps: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      completed: z.boolean(),
      progress: z.object({
        count: z.number().int().describe("the step's entries that count now"),
        sum: z.number().describe('their summed challenge.sum field; 0 without one'),
        target: z.number().describe("the challenge's times, else its sum.atLeast, else 1"),
      }),
    }),
  ),
  completedAt: z
    .number()
    .int()
    .nullable()
    .describe("Unix ms of the completing action's timestamp; null when not completed in the current period"),
  period: nullableString.describe(
    'the current period of a repeated mission, named like leaderboard seasons (2026-11-25, 2026-W48); null for repeat None',
  ),
});

/** GET /v1/admin/players/{playerId}/export: everything held about one player, every list oldest first. */
export const playerExportShape = z.object({
  playerId: z.string(),
  profile: z.object({
    username: z.string(),
    imageName: nullableString,
    timeZone: profileShape.shape.timeZone,
    registeredAt: z.number().int().describe('Unix ms'),
    attributes: profileShape.shape.attributes,
  }),
  points: profileShape.shape.points,
  level: profileShape.shape.level,
  badges: profileShape.shape.badges,
  balances: profileShape.shape.balances,
  transactions: z.array(transactionHistoryShape).describe("store purchases and actions' costs, in the order made"),
  chests: z.object({
    owned: z.array(ownedChestShape),
    rewards: z.array(chestHistoryShape).describe('one record per reward received from a chest, in the order opened'),
  }),
  powerups: z.array(powerupShape),
  streaks: z.array(streakShape),
  missions: z.array(missionShape),
  actions: z
    .array(
      z.object({
        referenceId: z.string(),
        name: z.string(),
        timestamp: z.number().int().describe('Unix ms, as the action carried it'),
        details: z.array(z.object({ name: z.string(), value: z.string() })),
        earnedPoints: z.number().describe("the action's points plus badge, trigger, rank and milestone points"),
        reversed: z.boolean().describe('taken back since (POST /v1/action/delete)'),
      }),
    )
    .describe('every processed action, in the order processed'),
});

export const textShape = z.string().describe('a confirmation message');

export const registeredShape = z.object({
  playerId: z.string(),
  username: z.string(),
  imageName: nullableString,
  timeZone: nullableString.describe("the player's IANA time zone; null: the catalog's settings.timezone"),
  attributes: z.record(z.string(), z.string()).describe("the player's attributes"),
});

const metadataShape = z.object({
  correlationId: z.string(),
  causationId: z.string(),
  keyName: z.string(),
  catalogVersion: z.number(),
});
export const auditEventShape = z.object({
  position: z.number().int().describe('position in the global log'),
  stream: z.string(),
  revision: z.number().int(),
  id: z.string(),
  type: z.string(),
  time: z.number().int().describe('Unix ms when it was recorded'),
  data: z
    .record(z.string(), z.unknown())
    .describe('the event as recorded; player events carry `effects`, the signed balance changes'),
  metadata: metadataShape,
});

const causalChainShape = z.object({
  cause: z.string(),
  correlationId: z.string(),
  causationId: z.string(),
  keyName: z.string(),
  catalogVersion: z.number(),
  time: z.number().int(),
  events: z.array(
    z.object({
      position: z.number().int(),
      stream: z.string(),
      revision: z.number().int(),
      type: z.string(),
      time: z.number().int(),
      summary: z.string(),
    }),
  ),
  balanceChanges: z.array(
    z.object({
      position: z.number().int(),
      type: z.string(),
      balance: z.string().describe('a deliverable uid, or points'),
      before: z.number(),
      change: z.number(),
      after: z.number(),
    }),
  ),
  rules: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      'for an action: the catalog version, the rule behind each award and level, and for each award the actions that made up its challenge (`challenge`: per condition, their referenceId, time and value)',
    ),
});
export const traceShape = z.union([
  z.object({
    referenceId: z.string(),
    playerId: z.string(),
    actionName: z.string(),
    reversed: z.boolean(),
    provisionUid: z.string().nullable(),
    chains: z.array(causalChainShape),
  }),
  z.object({
    provisionUid: z.string(),
    playerId: z.string(),
    referenceType: z.enum(['Store', 'Action']),
    bundleUid: z.string().nullable(),
    referenceId: z.string().nullable(),
    status: z.enum(['Pending', 'Completed', 'Refunded', 'Failed']),
    chains: z.array(causalChainShape),
  }),
  z.object({
    openingUid: z.string(),
    playerId: z.string(),
    chestDeliverableUid: z.string(),
    chestLabel: z.string(),
    chains: z.array(causalChainShape),
  }),
]);
export const verificationShape = z.object({
  differences: z.array(
    z.object({
      collection: z.string(),
      _id: z.string(),
      path: z
        .string()
        .describe('dotted path of the field that differs; empty when the document is missing on one side'),
      live: z.unknown().optional().describe('absent when the field or document is missing on this side'),
      rebuilt: z.unknown().optional().describe('absent when the field or document is missing on this side'),
    }),
  ),
  truncated: z.boolean().describe('more differences than listed (at most 1,000 are)'),
  eventsReplayed: z.number().int(),
  collections: z.array(z.string()),
  ms: z.number().int().describe('how long the replay and the comparison took'),
});

export const jobsOverviewShape = z.object({
  waiting: z
    .number()
    .int()
    .describe('due, waiting for a free worker (for long only when no command process runs, or all are busy)'),
  delayed: z
    .number()
    .int()
    .describe('due later: Pending purchases and activated powerups, and retries waiting out their backoff'),
  running: z.number().int().describe('being run now, or by a process that died until its lock runs out'),
  failed: z.number().int().describe('attempts used up: each needs an operator'),
  recentFailures: z
    .array(
      z.object({
        type: z.string(),
        jobId: z.string(),
        attempts: z.number().int(),
        failedAt: z.number().int().describe('Unix ms'),
        reason: z.string(),
      }),
    )
    .describe('the latest failures, newest first'),
});

const simulatedStandingShape = z.object({ rank: z.number().int(), userId: z.string(), points: z.number() });

/** POST /v1/audit/simulate: what would differ had the draft catalog always been in force. */
export const simulationShape = z.object({
  eventsReplayed: z.number().int().describe("events of the players' streams replayed"),
  actionsRedecided: z.number().int().describe('ActionProcessed events decided again under the draft'),
  playersAffected: z.number().int().describe('players whose points, level, badges or balances differ'),
  totals: z.object({
    pointsBefore: z.number(),
    pointsAfter: z.number(),
    badgesGained: z.number().int(),
    badgesLost: z.number().int(),
    levelsChanged: z.number().int().describe('players whose level differs'),
  }),
  players: z
    .array(
      z.object({
        playerId: z.string(),
        pointsBefore: z.number(),
        pointsAfter: z.number(),
        levelBefore: z.number().nullable().describe('the highest level number reached; null for none'),
        levelAfter: z.number().nullable(),
        badgesGained: z.array(z.string()).describe('badge uids; a rank counts as its badge'),
        badgesLost: z.array(z.string()),
        balances: z
          .array(z.object({ deliverableUid: z.string(), before: z.number(), after: z.number() }))
          .describe('only the deliverables whose balance differs'),
      }),
    )
    .describe('the affected players only, largest change in points first, at most `top`'),
  boards: z
    .array(
      z.object({
        leaderboardUid: z.string(),
        before: z.array(simulatedStandingShape),
        after: z.array(simulatedStandingShape),
      }),
    )
    .describe(
      "each all-time (Standard) board of the draft: its top 10 now (as the boards in force scored the log) and under the draft's definition",
    ),
  problems: z
    .array(z.object({ position: z.number().int(), playerId: z.string(), type: z.string(), message: z.string() }))
    .describe(
      'recorded facts the draft makes impossible (they stand, as recorded), and recorded actions the draft refuses; the first 1,000, then one line saying how many more',
    ),
});
export type Simulation = z.infer<typeof simulationShape>;
