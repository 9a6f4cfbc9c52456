/**
 * The response shapes of the API that several slices send, as zod schemas: the OpenAPI document is
 * generated from them, and tests parse real responses with them so the document cannot drift from
 * what the service sends. A shape one slice alone sends lives in that slice.
 */
import { z } from 'zod';
import { actionResultSchema } from '../../../domain/events/player-events';

export const nullableString = z.string().nullable();

export const actionResultShape = actionResultSchema.extend({
  reversed: z.literal(true).optional().describe('get-response only: the action was reversed'),
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
  experiments: z
    .array(
      z.object({
        uid: z.string(),
        variant: z.string(),
        joinedAt: z.number().int().describe('Unix ms: the timestamp of the action that joined them'),
      }),
    )
    .describe('every experiment the player joined, with their variant, in the order joined'),
  leagues: z
    .array(z.object({ uid: z.string(), tier: z.string() }))
    .describe("each league's tier of the player: the one they are in this period, else the one they would enter"),
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

export const scalingModeShape = z.enum(['None', 'PlayerLevel', 'Custom']);
export const ownedChestShape = z.object({
  chestDeliverableUid: z.string(),
  label: z.string(),
  imageName: nullableString,
  balance: z.number(),
  scalingMode: scalingModeShape,
  isActive: z.boolean(),
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
  experiments: z
    .array(
      z.object({
        uid: z.string(),
        variants: z.array(
          z.object({
            uid: z.string(),
            players: z.number().int().describe('the players of the history in this variant under the draft'),
            pointsBefore: z.number(),
            pointsAfter: z.number(),
            badgesGained: z.number().int(),
            badgesLost: z.number().int(),
            levelsChanged: z.number().int().describe('its players whose level differs'),
          }),
        ),
      }),
    )
    .optional()
    .describe(
      'each experiment of the draft (absent when it has none): per variant, the players of the recorded history who join it under the draft (by the variant rule; one who joined keeps their variant), and for them points, badges and levels before and after',
    ),
});
export type Simulation = z.infer<typeof simulationShape>;

/** A moment (docs/catalog.md, "moments"): its event's type, when it is (or was) due, and what it says. */
export const momentShape = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('StreakAtRisk'),
    dueAt: z.number().describe("Unix ms: atLocalTime of the player's zone"),
    data: z.object({
      streakUid: z.string(),
      length: z.number().int(),
      endsAt: z.number().describe('Unix ms at which the run ends unless extended'),
      lastPeriod: z.number().int().describe("the run's last counted day, as a calendar ordinal"),
    }),
  }),
  z.object({
    type: z.literal('MissionEnding'),
    dueAt: z.number(),
    data: z.object({
      missionUid: z.string(),
      endsAt: z.number().describe("Unix ms at which the mission's period or window ends"),
      stepsLeft: z.number().int(),
      period: z.number().int().describe("the mission's period (0 for a mission done once)"),
    }),
  }),
  z.object({
    type: z.literal('LeagueEnding'),
    dueAt: z.number().describe("Unix ms: hoursBefore the period's end"),
    data: z.object({
      leagueUid: z.string(),
      tier: z.string(),
      zone: z.enum(['Promotion', 'Safe', 'Demotion']).describe('where their rank stood when the moment was appended'),
      rank: z.number().int().describe('their rank in their cohort then'),
      endsAt: z.number().describe('Unix ms at which the period ends'),
      periodStart: z.number().describe('Unix ms at which the period starts'),
    }),
  }),
  z.object({
    type: z.literal('PlayerInactive'),
    dueAt: z.number(),
    data: z.object({
      days: z.number().int(),
      lastActionAt: z.number().describe("Unix ms: the player's latest action"),
    }),
  }),
]);

export const playerMomentsShape = z.object({
  pending: z.array(momentShape).describe('moments to come, or due and about to be appended; soonest first'),
  recent: z
    .array(momentShape)
    .describe('the last moment appended of each kind and subject (a streak, a mission, the player); newest first'),
});
