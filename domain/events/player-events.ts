import { z } from 'zod';
import { effectsSchema, grantSchema, lotSchema } from './common';
import { leagueContributionSchema, leagueReturnSchema } from './league-schemas';

/** One qualifying action counted towards a badge or trigger condition. */
export const progressEntrySchema = z.object({ ref: z.string(), ts: z.number(), value: z.number() });
export type ProgressEntry = z.infer<typeof progressEntrySchema>;

export const rankSchema = z.object({ rank: z.number().int(), label: z.string() });

/** A badge, rank or trigger activation earned by an action, with what it granted and why. */
export const awardSchema = z.object({
  kind: z.enum(['badge', 'trigger']),
  uid: z.string(),
  label: z.string(),
  ruleType: z.enum(['OneTimeOnly', 'Repeatable', 'Ranked']),
  rank: rankSchema.nullable(),
  points: z.number(),
  imageName: z.string().nullable(),
  grants: z.array(grantSchema),
  /** Progress entries this award consumed, per condition (OneTimeOnly and Repeatable). */
  consumed: z.array(z.array(progressEntrySchema)),
  /** Took one of a limited trigger's global activations. */
  limited: z.boolean(),
});
export type Award = z.infer<typeof awardSchema>;

export const levelReachedSchema = z.object({
  uid: z.string(),
  label: z.string(),
  level: z.number(),
  target: z.number(),
  imageName: z.string().nullable(),
  grants: z.array(grantSchema),
});
export type LevelReached = z.infer<typeof levelReachedSchema>;

const calendarPeriodSchema = z.enum(['Day', 'Week', 'Month']);

/**
 * One use of a cap's allowance by an action: `used` actions (times), points (points) or amount of
 * the deliverable `of` (earn), in the period `ordinal` of the player's calendar (domain/time/calendar.ts).
 */
export const allowanceUseSchema = z.object({
  kind: z.enum(['times', 'points', 'earn']),
  /** The action identifier (times, points) or the deliverable uid (earn). */
  of: z.string(),
  period: calendarPeriodSchema,
  ordinal: z.number().int(),
  used: z.number(),
});
export type AllowanceUse = z.infer<typeof allowanceUseSchema>;

/** A cap that cut what an action earned, as the action result shows it. */
export const capCutSchema = z.object({
  period: calendarPeriodSchema,
  kind: z.enum(['times', 'points', 'earn']),
  limit: z.number(),
  /** The deliverable of an `earn` cap. */
  deliverable: z.string().optional(),
});
export type CapCut = z.infer<typeof capCutSchema>;

/** A streak milestone reached, with what it granted (after powerups and earn caps). */
export const streakMilestoneSchema = z.object({
  length: z.number().int(),
  points: z.number(),
  grants: z.array(grantSchema),
});

/** What an action did to a streak it counts for: the run after it, and how it got there. */
export const streakStepSchema = z.object({
  uid: z.string(),
  label: z.string(),
  /** The action's period (domain/time/calendar.ts ordinal of the streak's Day or Week) in the player's zone. */
  period: z.number().int(),
  length: z.number().int(),
  longest: z.number().int(),
  lastPeriod: z.number().int(),
  /** Freezes held after the action. */
  freezes: z.number().int(),
  freezesUsed: z.number().int(),
  /** The run grew (not when it started or nothing changed). */
  extended: z.boolean(),
  milestones: z.array(streakMilestoneSchema),
});
export type StreakStep = z.infer<typeof streakStepSchema>;

/**
 * What an action did in one mission: the steps whose condition it met (with the value it adds to a
 * challenge.sum: a reversal replays them), those it was an entry of, and the steps completed after it.
 */
export const missionMoveSchema = z.object({
  uid: z.string(),
  label: z.string(),
  /** The action's period (domain/time/calendar.ts ordinal of the Day or Week in the player's zone); 0 for repeat None. */
  period: z.number().int(),
  matches: z.array(z.object({ step: z.number().int(), value: z.number() })),
  /** Step indexes it was an entry of. */
  counted: z.array(z.number().int()),
  /** Step indexes completed in the period after it. */
  completedSteps: z.array(z.number().int()),
  /** The mission completed by this action, with what it granted (after powerups and earn caps); null otherwise. */
  completion: z.object({ points: z.number(), grants: z.array(grantSchema) }).nullable(),
});
export type MissionMove = z.infer<typeof missionMoveSchema>;

/** An experiment and the variant a decision was made under. */
export const experimentInForceSchema = z.object({ uid: z.string(), variant: z.string() });

export const actionResultSchema = z.object({
  playerId: z.string(),
  referenceId: z.string(),
  badges: z
    .array(
      z.object({
        uid: z.string(),
        label: z.string(),
        type: z.string(),
        points: z.number(),
        imageName: z.string().nullable(),
        rank: rankSchema.nullable(),
      }),
    )
    .nullable(),
  triggers: z.array(z.object({ uid: z.string(), label: z.string(), points: z.number() })).nullable(),
  achievedLevel: z
    .object({
      uid: z.string(),
      label: z.string(),
      level: z.number(),
      target: z.number(),
      imageName: z.string().nullable(),
    })
    .nullable(),
  earnedPoints: z.number(),
  deliverables: z.array(grantSchema).nullable(),
  provisionUid: z.string().optional(),
  /** null when no cap cut anything (absent in results recorded before caps existed). */
  capped: z.array(capCutSchema).nullable().optional(),
  /** null when the action counts for no streak (absent in results recorded before streaks existed). */
  streaks: z
    .array(
      z.object({
        uid: z.string(),
        label: z.string(),
        length: z.number().int(),
        extended: z.boolean(),
        freezesUsed: z.number().int(),
        freezesLeft: z.number().int(),
        milestones: z.array(
          z.object({ length: z.number().int(), points: z.number(), deliverables: z.array(grantSchema) }),
        ),
      }),
    )
    .nullable()
    .optional(),
  /** null when the action made progress in no mission (absent in results recorded before missions existed). */
  missions: z
    .array(
      z.object({
        uid: z.string(),
        label: z.string(),
        stepsCompleted: z.number().int(),
        stepsTotal: z.number().int(),
        completed: z.boolean(),
      }),
    )
    .nullable()
    .optional(),
  /** The experiments the action was decided under, each with the player's variant (absent: none). */
  experiments: z.array(experimentInForceSchema).optional(),
});
export type ActionResult = z.infer<typeof actionResultSchema>;

export const costSchema = z.object({
  deliverableUid: z.string(),
  label: z.string(),
  amount: z.number(),
  provisionUid: z.string(),
  /** The lots of a currency that expires it drew, soonest first: what a reversal gives back (absent: none). */
  lots: z.array(lotSchema).optional(),
});

export const playerRegisteredSchema = z.object({
  playerId: z.string(),
  username: z.string(),
  imageName: z.string().nullable(),
  registeredAt: z.number(),
  /** IANA zone of the player's calendar; absent or null: the catalog's settings.timezone. */
  timeZone: z.string().nullable().optional(),
  /** The player's attributes (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
  /** Levels reached with zero points (the level with target 0). */
  levels: z.array(levelReachedSchema),
  effects: effectsSchema,
});
export type PlayerRegistered = z.infer<typeof playerRegisteredSchema>;

/** A player's name, picture or time zone changed: the values after the change. */
export const playerUpdatedSchema = z.object({
  playerId: z.string(),
  username: z.string(),
  imageName: z.string().nullable(),
  timeZone: z.string().nullable(),
  /** The player's attributes after the change (absent: unchanged, in events recorded before attributes existed). */
  attributes: z.record(z.string(), z.string()).optional(),
  updatedAt: z.number(),
  effects: effectsSchema,
});
export type PlayerUpdated = z.infer<typeof playerUpdatedSchema>;

/**
 * The player was erased (GDPR art. 17): their key is deleted right after this event, so their
 * personal fields read `[erased]` everywhere; amounts stay. No personal data.
 */
export const playerErasedSchema = z.object({
  playerId: z.string(),
  /** Unix ms. */
  erasedAt: z.number(),
  /** None: the player's amounts stay in the history (verify, shared stocks and totals). */
  effects: effectsSchema,
});
export type PlayerErased = z.infer<typeof playerErasedSchema>;

/**
 * A support adjustment: points and deliverables granted (+) or taken back (-) for one player by an
 * operator, with the reason they gave and the name of the key that made it. Never takes the
 * player's points or a balance below zero (9011).
 */
export const playerAdjustedSchema = z.object({
  playerId: z.string(),
  /** Names the adjustment in traces (GET /v1/audit/trace?adjustmentUid=) and on the boards. */
  adjustmentUid: z.string(),
  reason: z.string(),
  /** The API key that made it (its name in the keys file). */
  keyName: z.string(),
  /** Signed. */
  points: z.number(),
  /** Signed amounts of catalog deliverables. */
  deliverables: z.array(grantSchema),
  /** Levels the points granted reach, with their grants; points taken back take no level back. */
  levels: z.array(levelReachedSchema),
  /** Unix ms. */
  adjustedAt: z.number(),
  /** The player's attributes that leaderboards are scoped by, as now (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
  effects: effectsSchema,
});
export type PlayerAdjusted = z.infer<typeof playerAdjustedSchema>;

/**
 * The player joined an experiment (docs/catalog.md, "Experiments"), in the same append as the
 * decision of the action that joined them, which is decided under the variant: the variant holds
 * for the rest of the experiment. No effects of its own.
 */
export const experimentJoinedSchema = z.object({
  playerId: z.string(),
  experimentUid: z.string(),
  variantUid: z.string(),
  /** The action that joined them. */
  referenceId: z.string(),
  /** Unix ms: that action's timestamp. */
  joinedAt: z.number(),
  /** The zone of the player's calendar then: the days the experiment's results count are its days. */
  timeZone: z.string(),
  effects: effectsSchema,
});
export type ExperimentJoined = z.infer<typeof experimentJoinedSchema>;

export const actionProcessedSchema = z.object({
  playerId: z.string(),
  referenceId: z.string(),
  actionUid: z.string(),
  actionName: z.string(),
  timestamp: z.number(),
  multiplier: z.number(),
  details: z.array(z.object({ name: z.string(), value: z.string() })),
  /** The action's own points after pointGap and multiplier. */
  actionPoints: z.number(),
  /** The action's points counted (not within pointGap): the next pointGap is measured from here. */
  pointsAwarded: z.boolean(),
  /** The action's own deliverables after multiplier and powerups. */
  actionGrants: z.array(grantSchema),
  cost: costSchema.nullable(),
  progress: z.array(z.object({ rule: z.string(), condition: z.number().int(), entry: progressEntrySchema })),
  awards: z.array(awardSchema),
  levels: z.array(levelReachedSchema),
  result: actionResultSchema,
  effects: effectsSchema,
  /** Past a `times` cap: recorded, but earned nothing and counted for no rule, streak or leaderboard. */
  timesCapped: z.boolean().optional(),
  /** The caps' allowances this action used (absent: none). */
  allowances: z.array(allowanceUseSchema).optional(),
  /** The streaks it counts for (absent: none). */
  streaks: z.array(streakStepSchema).optional(),
  /** The missions with a step whose condition it met (absent: none). */
  missions: z.array(missionMoveSchema).optional(),
  /** The player's attributes that leaderboards are scoped by, as in force when processed (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
  /** The experiments it was decided under, each with the player's variant (absent: none). */
  experiments: z.array(experimentInForceSchema).optional(),
  /**
   * Unix ms: the time the decision used (the lots and powerups valid then, a registration's time),
   * which the store's time of the append may pass (a spend accepted just before its currency
   * expired). Absent in events recorded before it was kept: the store's time stands for it.
   */
  decidedAt: z.number().optional(),
  /** What it adds to each league's metric in the period of its timestamp (absent: nothing). */
  leagues: z.array(leagueContributionSchema).optional(),
});
export type ActionProcessed = z.infer<typeof actionProcessedSchema>;

/** An award taken back by a reversal: earned by `awardedBy` (the reversed action or a later one). */
export const revokedAwardSchema = z.object({
  kind: z.enum(['badge', 'trigger']),
  uid: z.string(),
  rank: z.number().int().nullable(),
  awardedBy: z.string(),
  awardedAt: z.number(),
  points: z.number(),
  grants: z.array(grantSchema),
  limited: z.boolean(),
});
export type RevokedAward = z.infer<typeof revokedAwardSchema>;

export const actionReversedSchema = z.object({
  playerId: z.string(),
  referenceId: z.string(),
  actionName: z.string(),
  /** Timestamp of the original action (its leaderboard period). */
  timestamp: z.number(),
  /** Unix ms of the reversal. */
  reversedAt: z.number(),
  /** Points the original action earned by itself (pointGap and multiplier applied). */
  actionPoints: z.number(),
  actionGrants: z.array(grantSchema),
  revokedAwards: z.array(revokedAwardSchema),
  revokedLevels: z.array(z.object({ uid: z.string(), level: z.number(), grants: z.array(grantSchema) })),
  refund: costSchema.nullable(),
  effects: effectsSchema,
  /** The original was past a `times` cap: it had counted for nothing. */
  timesCapped: z.boolean().optional(),
  /** The experiments the original was decided under, each with the player's variant (absent: none). */
  experiments: z.array(experimentInForceSchema).optional(),
  /** Allowance uses given back: the action's own, and those of revoked awards and levels of later actions. */
  allowancesReturned: z.array(z.object({ ref: z.string(), use: allowanceUseSchema })).optional(),
  /** Each streak the action counted for, recomputed from the remaining actions. */
  streaks: z
    .array(
      z.object({
        uid: z.string(),
        length: z.number().int(),
        longest: z.number().int(),
        lastPeriod: z.number().int().nullable(),
        freezes: z.number().int(),
      }),
    )
    .optional(),
  /** Milestones the recomputed runs no longer reach, with what they had granted. */
  revokedMilestones: z
    .array(
      z.object({
        streakUid: z.string(),
        length: z.number().int(),
        period: z.number().int(),
        awardedBy: z.string(),
        awardedAt: z.number(),
        points: z.number(),
        grants: z.array(grantSchema),
      }),
    )
    .optional(),
  /** Each mission period the action counted in, recomputed from the remaining actions: per step, its entries' references and whether it is completed. */
  missions: z
    .array(
      z.object({
        uid: z.string(),
        period: z.number().int(),
        steps: z.array(z.object({ refs: z.array(z.string()), completed: z.boolean() })),
      }),
    )
    .optional(),
  /** Mission completions taken back, with what they had granted. */
  revokedMissions: z
    .array(
      z.object({
        missionUid: z.string(),
        period: z.number().int(),
        awardedBy: z.string(),
        awardedAt: z.number(),
        points: z.number(),
        grants: z.array(grantSchema),
      }),
    )
    .optional(),
  /** What it took back from league periods not yet settled (absent: nothing). */
  leagues: z.array(leagueReturnSchema).optional(),
});
export type ActionReversed = z.infer<typeof actionReversedSchema>;

/**
 * A recompute re-decided the player's actions under a catalog version: `state` holds the fields of
 * the player's state that changed, as they are now (domain/player/snapshot.ts; the rest
 * stands as the stream left it; an event of an earlier version holds every field), `effects` is what changed in points, balances and powerups,
 * `scores` each action's leaderboard contribution that changed, and `actions` the re-decided
 * actions a later reversal takes back (those whose decision differs from the recorded one).
 */
export const playerRecomputedSchema = z.object({
  playerId: z.string(),
  recomputeUid: z.string(),
  catalogVersion: z.number().int(),
  /** Unix ms. */
  recomputedAt: z.number(),
  /** The stream revision the recompute read: the event is appended right after it. */
  readRevision: z.number().int(),
  changes: z.object({
    pointsBefore: z.number(),
    pointsAfter: z.number(),
    levelBefore: z.number().nullable(),
    levelAfter: z.number().nullable(),
    badgesGained: z.array(z.string()),
    badgesLost: z.array(z.string()),
    balances: z.array(z.object({ deliverableUid: z.string(), before: z.number(), after: z.number() })),
    /** The actions whose decision changed, by referenceId. */
    actions: z.array(z.string()),
  }),
  scores: z.array(
    z.object({
      ref: z.string(),
      ts: z.number(),
      before: z.number(),
      after: z.number(),
      attributes: z.record(z.string(), z.string()).optional(),
    }),
  ),
  actions: z.array(actionProcessedSchema),
  state: z.unknown(),
  effects: effectsSchema,
});
export type PlayerRecomputed = z.infer<typeof playerRecomputedSchema>;
