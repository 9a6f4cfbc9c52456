/**
 * zod schemas of the catalog format (docs/catalog.md): the shape of every entry, the rules on single
 * values (formats, signs, integers) and defaults. Rules that relate several fields or entries
 * (references, uniqueness, ordering, fields that depend on a type or mode) are in validate.ts: they
 * read entries with their defaults applied, and still run on the entries the schema accepts when
 * others fail. The one exception is a filter's value, whose shape depends on its op (see FilterSchema).
 *
 * Objects are strict: an unknown field (usually a typo) is a problem, not silently ignored.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_AMOUNT } from '../amount';
import {
  MAX_COUNT,
  MAX_DRAW_COUNT,
  MAX_EXPIRY_DAYS,
  MAX_FACTOR,
  MAX_LEAGUE_MINUTES,
  MAX_TIERS_PER_LEAGUE,
  MAX_WEIGHT,
  MAX_WITHIN_DAYS,
} from './limits';
import { SEASONS } from '../time/season';
import { isLocalIso, isValidTimeZone, localIsoProblem } from '../time/local-time';
import {
  type Action,
  type ActionCap,
  type Badge,
  type CapPeriod,
  type Catalog,
  type CurrencyExpiry,
  type Deliverable,
  type Experiment,
  type ExperimentPatch,
  FILTER_OPS,
  type Filter,
  type Leaderboard,
  type League,
  type LeagueTier,
  type Level,
  type Mission,
  type MissionRepeat,
  type Moments,
  PATCHABLE_SECTIONS,
  type RankSet,
  type Segment,
  type SegmentCondition,
  type Settings,
  type Store,
  type Streak,
  type Trigger,
} from './types';

// The catalog types are part of this module's API: importers of the schema get them here.
export * from './types';

export const UID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Uid of an entry the file gives none (32 lowercase hex, like every service uid): a digest of the entry's
 * natural key, so it stays the same from one start to the next as long as that key does. The key
 * is the identifier of an action, the number of a level, the store uid and label of a bundle, and
 * the label of anything else; entries whose label may change should be given an explicit uid.
 */
export function generatedUid(kind: string, naturalKey: string): string {
  return createHash('sha256').update(`${kind}:${naturalKey}`).digest('hex').slice(0, 32);
}

/** Decimal places of a number as written (shortest round-trip form, exponent included). */
function decimalPlaces(n: number): number {
  const [mantissa = '', exponent = '0'] = String(n).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}

const NOT_NEGATIVE = 'must not be negative';
const atMost = (limit: number, what?: string) =>
  `must be at most ${limit.toLocaleString('en-US')}${what ? ` (${what})` : ''}`;
const AMOUNT_LIMIT = atMost(MAX_AMOUNT, 'the largest amount the engine holds');

// Amounts and points are kept exact to 6 decimal places; more cannot be honoured. They stay
// within MAX_AMOUNT, like every amount the engine holds.
const Decimal = z
  .number()
  .min(-MAX_AMOUNT, `must be at least -${MAX_AMOUNT.toLocaleString('en-US')}`)
  .max(MAX_AMOUNT, AMOUNT_LIMIT)
  .refine((n) => decimalPlaces(n) <= 6, 'must have at most 6 decimal places');
const NonNegativeDecimal = Decimal.min(0, NOT_NEGATIVE);
const PositiveDecimal = Decimal.gt(0, 'must be greater than 0');
const NonNegativeInt = z.number().int().min(0, NOT_NEGATIVE).max(MAX_COUNT, atMost(MAX_COUNT));
const PositiveInt = z.number().int().min(1, 'must be at least 1').max(MAX_COUNT, atMost(MAX_COUNT));
/** Seconds. */
const Duration = z.number().min(0, NOT_NEGATIVE).max(MAX_COUNT, atMost(MAX_COUNT, 'seconds'));
const Weight = z.number().min(0, NOT_NEGATIVE).max(MAX_WEIGHT, atMost(MAX_WEIGHT));
const Factor = z.number().gt(0, 'must be greater than 0').max(MAX_FACTOR, atMost(MAX_FACTOR));

const Text = z.string().min(1, 'must not be empty');
const OptionalText = z.string().nullable().default(null);
/** A reference to another entry; whether it resolves is checked in validate.ts. */
const Ref = z.string().min(1, 'must not be empty');
const OptionalRef = Ref.nullable().default(null);

export const UidSchema = z.string().regex(UID_PATTERN, 'must be 1 to 64 characters of A-Z a-z 0-9 _ -');

export const LocalIsoSchema = z.string().refine(isLocalIso, { error: (iss) => localIsoProblem(iss.input) });
const OptionalDate = LocalIsoSchema.nullable().default(null);

/** An optional list: absent or null (an empty YAML section) is []. */
function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);
}

/** An optional object whose fields all have defaults: absent or null gives the defaults. */
function withDefaults<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => v ?? undefined, schema.optional()).transform((v) => v ?? schema.parse({}));
}

const Scalar = z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string, number or boolean' });

const labelled = {
  uid: UidSchema.optional(),
  label: Text,
  description: OptionalText,
  imageName: OptionalText,
  isActive: z.boolean().default(true),
};

// --- settings ---

export const RateLimitSchema = z.strictObject({
  perSecond: z.number().min(0, NOT_NEGATIVE).max(MAX_COUNT, atMost(MAX_COUNT)).default(100),
  burst: PositiveInt.default(200),
});

export const SettingsSchema = z.strictObject({
  timezone: z
    .string()
    .refine(isValidTimeZone, { error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}` })
    .default('UTC'),
  autoRegisterPlayers: z.boolean().default(true),
  pendingTimeoutSeconds: PositiveInt.default(900),
  rateLimit: withDefaults(RateLimitSchema),
}) satisfies z.ZodType<Settings>;

// --- deliverables, chests, powerups ---

export const GrantSchema = z.strictObject({ deliverable: Ref, amount: NonNegativeDecimal });

export const TriggerGrantSchema = z.strictObject({
  deliverable: Ref,
  amount: NonNegativeDecimal,
  weight: Weight.nullable().default(null),
});

const AmountRange = z.strictObject({ min: NonNegativeDecimal, max: NonNegativeDecimal });
const DrawCountBound = PositiveInt.max(MAX_DRAW_COUNT, atMost(MAX_DRAW_COUNT, 'draws per opening'));
const DrawCount = z.strictObject({ min: DrawCountBound, max: DrawCountBound });

export const ChestPoolEntrySchema = z.strictObject({
  reward: Ref,
  amount: AmountRange,
  weight: Weight,
  stock: NonNegativeInt.nullable().default(null),
});

export const ChestSchema = z.strictObject({
  scalingMode: z.enum(['None', 'PlayerLevel', 'Custom']).default('None'),
  startDate: OptionalDate,
  endDate: OptionalDate,
  drawCount: DrawCount.default(() => ({ min: 1, max: 1 })),
  pool: list(ChestPoolEntrySchema),
  tiers: list(
    z.strictObject({
      minLevel: NonNegativeInt,
      maxLevel: NonNegativeInt,
      drawCount: DrawCount.nullable().default(null),
      pool: list(ChestPoolEntrySchema),
    }),
  ),
  scaling: list(z.strictObject({ minLevel: NonNegativeInt, factor: Factor })),
});

export const PowerupSchema = z.strictObject({
  multiplier: Factor,
  maxUseCount: NonNegativeInt.default(0),
  timeoutSeconds: Duration.int().default(0),
  neverExpires: z.boolean().default(false),
  targetPrizes: list(Ref),
});

// --- caps ---

const CapPeriodSchema = z.enum(['Day', 'Week', 'Month']);

/** The paths of entries repeating a (kind, period) pair already given: one cap of a kind per period. */
function uniqueCaps<T extends { period: CapPeriod }>(kindOf: (cap: T) => string) {
  return (caps: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    caps.forEach((cap, i) => {
      const key = `${kindOf(cap)} ${cap.period}`;
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'period'],
          message: `a second ${kindOf(cap)} cap for ${cap.period}: one cap of a kind per period`,
        });
      seen.add(key);
    });
  };
}

export const ActionCapSchema = z
  .strictObject({ period: CapPeriodSchema, times: PositiveInt.optional(), points: PositiveDecimal.optional() })
  .superRefine((c, ctx) => {
    if ((c.times === undefined) === (c.points === undefined))
      ctx.addIssue({ code: 'custom', message: 'must give exactly one of times and points' });
  })
  .transform((c): ActionCap => ({ period: c.period, times: c.times ?? null, points: c.points ?? null }));

export const EarnCapSchema = z.strictObject({ period: CapPeriodSchema, amount: PositiveDecimal });

/** Exactly one of afterDays and endOf; whether the deliverable may expire is checked in validate.ts. */
export const CurrencyExpirySchema = z
  .strictObject({
    afterDays: PositiveInt.max(MAX_EXPIRY_DAYS, atMost(MAX_EXPIRY_DAYS, 'days')).optional(),
    endOf: CapPeriodSchema.optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.afterDays === undefined) === (e.endOf === undefined))
      ctx.addIssue({ code: 'custom', message: 'must give exactly one of afterDays and endOf' });
  })
  .transform((e): CurrencyExpiry =>
    e.afterDays !== undefined ? { afterDays: e.afterDays, endOf: null } : { afterDays: null, endOf: e.endOf! },
  );

export const DeliverableSchema = z
  .strictObject({
    ...labelled,
    type: z.enum(['Prize', 'Content', 'Notification']),
    // No default here: validate.ts must see a kind written on a Content or Notification.
    kind: z.enum(['Currency', 'Item', 'Chest', 'Powerup']).optional(),
    isPercentage: z.boolean().default(false),
    details: list(z.strictObject({ label: Text, value: Scalar.transform(String) })),
    chest: ChestSchema.nullable().default(null),
    powerup: PowerupSchema.nullable().default(null),
    earnCaps: list(EarnCapSchema).superRefine(uniqueCaps(() => 'earn')),
    expiry: CurrencyExpirySchema.nullable().default(null),
  })
  .transform((d): Deliverable => ({
    ...d,
    uid: d.uid ?? generatedUid('deliverable', d.label),
    kind: d.kind ?? (d.type === 'Prize' ? 'Item' : null),
  }));

// --- actions ---

export const ActionSchema = z
  .strictObject({
    uid: UidSchema.optional(),
    identifier: z
      .string()
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .refine((s) => s.trim() === s, 'must not start or end with white space'),
    imageName: OptionalText,
    isActive: z.boolean().default(true),
    points: NonNegativeDecimal.default(0),
    pointGap: Duration.default(0),
    cost: NonNegativeDecimal.default(0),
    costDeliverable: OptionalRef,
    isUserAttribute: z.boolean().default(false),
    createDate: OptionalDate,
    actionObjects: list(
      z.strictObject({ label: Text, type: z.enum(['Number', 'String', 'Boolean', 'Date', 'Array']) }),
    ),
    deliverables: list(GrantSchema),
    caps: list(ActionCapSchema).superRefine(uniqueCaps((c) => (c.times !== null ? 'times' : 'points'))),
  })
  .transform((a): Action => ({ ...a, uid: a.uid ?? generatedUid('action', a.identifier) }));

// --- conditions (badges and triggers) ---

/** Checked here, not in validate.ts, so that the output can be typed by op (a list only for "in"). */
export const FilterSchema = z
  .strictObject({
    name: Text,
    op: z.enum(FILTER_OPS),
    value: z.union([Scalar, z.array(Scalar)], { error: 'must be a string, number or boolean, or a list of them' }),
  })
  .superRefine((f, ctx) => {
    if (f.op === 'in' && !Array.isArray(f.value)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be a list for op "in"' });
    } else if (f.op === 'in' && Array.isArray(f.value) && f.value.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must not be empty' });
    } else if (f.op !== 'in' && Array.isArray(f.value)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a single value for op "${f.op}"` });
    }
  })
  .transform((f): Filter => {
    if (f.op === 'in') return { name: f.name, op: 'in', value: ([] as unknown[]).concat(f.value).map(String) };
    return { name: f.name, op: f.op, value: String(f.value) };
  });

export const ChallengeSchema = z.strictObject({
  times: PositiveInt.nullable().default(null),
  sum: z.strictObject({ field: Text, atLeast: Decimal }).nullable().default(null),
  withinDays: z
    .number()
    .gt(0, 'must be greater than 0')
    .max(MAX_WITHIN_DAYS, atMost(MAX_WITHIN_DAYS))
    .nullable()
    .default(null),
  between: z.strictObject({ start: LocalIsoSchema, end: LocalIsoSchema }).nullable().default(null),
});

export const ConditionSchema = z.strictObject({
  action: Text,
  filters: list(FilterSchema),
  challenge: withDefaults(ChallengeSchema),
});

// --- badges, triggers, rank sets ---

const badgeLike = {
  ...labelled,
  type: z.enum(['OneTimeOnly', 'Repeatable', 'Ranked']),
  points: NonNegativeDecimal.default(0),
  startDate: OptionalDate,
  endDate: OptionalDate,
  requiredBadge: OptionalRef,
  conditions: z.array(ConditionSchema).min(1, 'at least one condition is required'),
  rankSet: OptionalRef,
  segment: OptionalRef,
};

export const BadgeSchema = z
  .strictObject({ ...badgeLike, deliverables: list(GrantSchema) })
  .transform((b): Badge => ({ ...b, uid: b.uid ?? generatedUid('badge', b.label) }));

export const TriggerSchema = z
  .strictObject({
    ...badgeLike,
    randomizedPrize: z.boolean().default(false),
    limited: z.boolean().default(false),
    limit: NonNegativeInt.default(0),
    deliverables: list(TriggerGrantSchema),
  })
  .transform((t): Trigger => ({ ...t, uid: t.uid ?? generatedUid('trigger', t.label) }));

export const RankSchema = z.strictObject({
  rank: PositiveInt,
  label: Text,
  times: PositiveInt.nullable().default(null),
  sum: PositiveDecimal.nullable().default(null),
  points: NonNegativeDecimal.default(0),
  deliverables: list(GrantSchema),
});

export const RankSetSchema = z
  .strictObject({ ...labelled, ranks: z.array(RankSchema).min(1, 'at least one rank is required') })
  .transform((r): RankSet => ({ ...r, uid: r.uid ?? generatedUid('rankSet', r.label) }));

// --- levels, leaderboards, stores ---

export const LevelSchema = z
  .strictObject({ ...labelled, level: PositiveInt, target: NonNegativeDecimal, deliverables: list(GrantSchema) })
  .transform((l): Level => ({ ...l, uid: l.uid ?? generatedUid('level', String(l.level)) }));

/** A prize by final rank (a league tier's, a season board's). */
export const LeaguePrizeSchema = z.strictObject({
  ranks: z
    .array(PositiveInt)
    .length(2, 'must be [from, to], two ranks')
    .refine(([from, to]) => from <= to, 'must not end before it starts')
    .transform(([from, to]): [number, number] => [from, to]),
  points: NonNegativeDecimal.default(0),
  deliverables: list(GrantSchema),
});

export const LeaderboardSchema = z
  .strictObject({
    ...labelled,
    /** A Season board's period, spelled as streaks', caps' and missions' are; none: an all-time board. */
    period: z.enum(['Day', 'Week', 'Month']).optional(),
    /** The older spelling of the same: `type: 1` and a `season`, or `type: 0`. */
    type: z.literal([0, 1]).optional(),
    season: z.enum(SEASONS).nullable().default(null),
    startDate: OptionalDate,
    endDate: OptionalDate,
    metric: z
      .union([z.literal('points'), z.strictObject({ action: Text })], {
        error: 'must be "points" or { action: <action identifier> }',
      })
      .default('points'),
    randomizedPrize: z.boolean().default(false),
    limited: z.boolean().default(false),
    scope: z
      .string({ error: 'must be an attribute name' })
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .nullable()
      .default(null),
    aggregate: z.literal('sum', { error: 'must be "sum"' }).nullable().default(null),
    /** A Season board's prizes by final rank, settled at each season's end (validate.ts: ranges, only on season boards). */
    prizes: list(LeaguePrizeSchema),
    settleAfterSeconds: Duration.int().default(0),
  })
  .superRefine((b, ctx) => {
    if (b.period !== undefined && (b.type !== undefined || b.season !== null))
      ctx.addIssue({
        code: 'custom',
        path: ['period'],
        message: 'gives the board its type and season: write period alone, or the older type and season',
      });
  })
  .transform(({ period, type, season, ...b }): Leaderboard => ({
    ...b,
    uid: b.uid ?? generatedUid('leaderboard', b.label),
    type: period ? 1 : (type ?? 0),
    season: period ? SEASON_OF_PERIOD[period] : season,
  }));

/** A board's `period` as the season it was spelled as before. */
const SEASON_OF_PERIOD = { Day: 'daily', Week: 'weekly', Month: 'monthly' } as const;

export const BundleSchema = z.strictObject({
  uid: UidSchema.optional(),
  label: Text,
  description: OptionalText,
  imageName: OptionalText,
  cost: NonNegativeDecimal.default(0),
  costDeliverable: OptionalRef,
  initialStock: NonNegativeInt.default(0),
  requiresFulfillment: z.boolean().default(false),
  contents: list(GrantSchema),
});

export const StoreSchema = z
  .strictObject({ ...labelled, startDate: OptionalDate, endDate: OptionalDate, bundles: list(BundleSchema) })
  .transform((s): Store => {
    const uid = s.uid ?? generatedUid('store', s.label);
    const bundles = s.bundles.map((b) => ({ ...b, uid: b.uid ?? generatedUid('bundle', `${uid}/${b.label}`) }));
    return { ...s, uid, bundles };
  });

// --- streaks ---

export const StreakSchema = z
  .strictObject({
    ...labelled,
    period: z.enum(['Day', 'Week']),
    conditions: z
      .array(z.strictObject({ action: Text, filters: list(FilterSchema) }))
      .min(1, 'at least one condition is required'),
    freezes: z.strictObject({ max: PositiveInt, earnEvery: PositiveInt }).nullable().default(null),
    milestones: list(
      z.strictObject({ length: PositiveInt, points: NonNegativeDecimal.default(0), deliverables: list(GrantSchema) }),
    ).superRefine((milestones, ctx) => {
      const seen = new Set<number>();
      milestones.forEach((m, i) => {
        if (seen.has(m.length))
          ctx.addIssue({ code: 'custom', path: [i, 'length'], message: `duplicate milestone length ${m.length}` });
        seen.add(m.length);
      });
    }),
    segment: OptionalRef,
  })
  .transform((s): Streak => ({ ...s, uid: s.uid ?? generatedUid('streak', s.label) }));

// --- missions ---

export const MissionSchema = z
  .strictObject({
    ...labelled,
    startDate: OptionalDate,
    endDate: OptionalDate,
    requires: withDefaults(z.strictObject({ badge: OptionalRef, level: PositiveInt.nullable().default(null) })),
    ordered: z.boolean().default(false),
    // Day and Week as streaks, caps and boards say it; Daily and Weekly, the older spelling, mean the same.
    repeat: z
      .enum(['None', 'Day', 'Week', 'Daily', 'Weekly'])
      .default('None')
      .transform((r): MissionRepeat => (r === 'Day' ? 'Daily' : r === 'Week' ? 'Weekly' : r)),
    steps: z
      .array(z.strictObject({ uid: UidSchema, label: Text, condition: ConditionSchema }))
      .min(1, 'at least one step is required')
      .superRefine((steps, ctx) => {
        const seen = new Set<string>();
        steps.forEach((s, i) => {
          if (seen.has(s.uid))
            ctx.addIssue({ code: 'custom', path: [i, 'uid'], message: `duplicate step uid "${s.uid}"` });
          seen.add(s.uid);
        });
      }),
    points: NonNegativeDecimal.default(0),
    deliverables: list(GrantSchema),
    segment: OptionalRef,
  })
  .transform((m): Mission => ({ ...m, uid: m.uid ?? generatedUid('mission', m.label) }));

// --- segments ---

/** An inclusive range with min, max or both; whether min <= max is checked in validate.ts. */
function bounds<T extends z.ZodType<number>>(bound: T) {
  return z
    .strictObject({ min: bound.optional(), max: bound.optional() })
    .refine((r) => r.min !== undefined || r.max !== undefined, 'must give min, max or both')
    .transform((r) => ({ min: r.min ?? null, max: r.max ?? null }));
}

export const SegmentConditionSchema = z.union(
  [
    z.strictObject({
      attribute: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
      in: z.array(Scalar.transform(String)).min(1, 'must not be empty'),
    }),
    z.strictObject({ level: bounds(NonNegativeInt) }),
    z.strictObject({ badge: Ref }),
    z.strictObject({ points: bounds(Decimal) }),
  ],
  {
    error:
      'must be one of { attribute: <name>, in: [values] }, { level: { min, max } }, { badge: <uid> }, { points: { min, max } }',
  },
) satisfies z.ZodType<SegmentCondition>;

export const SegmentSchema = z.strictObject({
  uid: UidSchema,
  label: Text,
  conditions: z.array(SegmentConditionSchema).min(1, 'at least one condition is required'),
}) satisfies z.ZodType<Segment>;

// --- moments ---

const LOCAL_TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const LocalTimeOfDay = z.string().regex(LOCAL_TIME_OF_DAY, {
  error: (iss) => `must be a local time HH:MM (00:00 to 23:59), got ${JSON.stringify(iss.input)}`,
});
/** The longest wait a moment may name: a year, in days or hours. */
const MAX_MOMENT_DAYS = 366;

export const MomentsSchema = z.strictObject({
  streakAtRisk: z
    .strictObject({ atLocalTime: LocalTimeOfDay.default('20:00'), minLength: PositiveInt.default(2) })
    .optional(),
  missionEnding: z
    .strictObject({
      hoursBefore: PositiveInt.max(MAX_MOMENT_DAYS * 24, atMost(MAX_MOMENT_DAYS * 24, 'hours')).default(24),
    })
    .optional(),
  leagueEnding: z
    .strictObject({
      hoursBefore: PositiveInt.max(MAX_MOMENT_DAYS * 24, atMost(MAX_MOMENT_DAYS * 24, 'hours')).default(12),
      zones: z
        .array(z.enum(['Promotion', 'Safe', 'Demotion']))
        .min(1, 'at least one zone is required')
        .refine((zones) => new Set(zones).size === zones.length, 'each zone at most once')
        .default(['Promotion', 'Demotion']),
    })
    .optional(),
  inactive: z
    .strictObject({
      afterDays: z
        .array(PositiveInt.max(MAX_MOMENT_DAYS, atMost(MAX_MOMENT_DAYS, 'days')))
        .min(1, 'at least one number of days is required')
        .superRefine((days, ctx) => {
          days.forEach((d, i) => {
            if (i > 0 && d <= days[i - 1])
              ctx.addIssue({
                code: 'custom',
                path: [i],
                message: `must be greater than the one before (${days[i - 1]})`,
              });
          });
        }),
      atLocalTime: LocalTimeOfDay.default('20:00'),
    })
    .optional(),
}) satisfies z.ZodType<Moments>;
// --- experiments ---

/** A patch's entries of one section: by entry uid, the fields it replaces; the values are checked against the base in experiments.ts. */
const PatchedEntries = z.record(UidSchema, z.record(z.string(), z.unknown())).optional();

export const ExperimentPatchSchema = z.strictObject(
  Object.fromEntries(PATCHABLE_SECTIONS.map((s) => [s, PatchedEntries])) as Record<
    (typeof PATCHABLE_SECTIONS)[number],
    typeof PatchedEntries
  >,
) satisfies z.ZodType<ExperimentPatch>;

export const ExperimentSchema = z.strictObject({
  uid: UidSchema,
  label: Text,
  segment: OptionalRef,
  startDate: OptionalDate,
  endDate: OptionalDate,
  variants: z
    .array(z.strictObject({ uid: UidSchema, weight: Weight, patch: ExperimentPatchSchema.default({}) }))
    .min(1, 'at least one variant is required (the first is the control)')
    .superRefine((variants, ctx) => {
      const seen = new Set<string>();
      variants.forEach((v, i) => {
        if (seen.has(v.uid))
          ctx.addIssue({ code: 'custom', path: [i, 'uid'], message: `duplicate variant uid "${v.uid}"` });
        seen.add(v.uid);
      });
      if (variants.length > 0 && variants.every((v) => v.weight === 0))
        ctx.addIssue({ code: 'custom', message: 'the weights must not all be 0' });
    }),
}) satisfies z.ZodType<Experiment>;
// --- leagues ---

export const LeagueTierSchema = z.strictObject({
  uid: UidSchema,
  label: Text,
  promote: NonNegativeInt.default(0),
  demote: NonNegativeInt.default(0),
  prizes: list(LeaguePrizeSchema),
}) satisfies z.ZodType<LeagueTier>;

/** The rules between tiers (top and lowest, unique uids, prize ranges) are in validate.ts. */
export const LeagueSchema = z.strictObject({
  uid: UidSchema,
  label: Text,
  metric: z
    .union([z.literal('points'), z.strictObject({ action: Text })], {
      error: 'must be "points" or { action: <action identifier> }',
    })
    .default('points'),
  period: z.union(
    [
      z.enum(['Day', 'Week']),
      z.strictObject({
        minutes: z
          .number()
          .int('must be a whole number of minutes')
          .min(1, 'must be at least 1')
          .max(MAX_LEAGUE_MINUTES, atMost(MAX_LEAGUE_MINUTES, 'a week')),
      }),
    ],
    { error: 'must be Day, Week or { minutes: N }' },
  ),
  timeZone: z
    .string()
    .refine(isValidTimeZone, { error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}` })
    .nullable()
    .default(null),
  cohortSize: z.number().int().min(2, 'must be at least 2').max(1000, 'must be at most 1,000'),
  settleAfterSeconds: Duration.int().default(0),
  tiers: z
    .array(LeagueTierSchema)
    .min(1, 'at least one tier is required')
    .max(MAX_TIERS_PER_LEAGUE, atMost(MAX_TIERS_PER_LEAGUE, 'tiers')),
}) satisfies z.ZodType<League>;

// --- the whole catalog ---

/** The schema of each list of entries, by section name. */
export const SECTION_SCHEMAS = {
  deliverables: DeliverableSchema,
  actions: ActionSchema,
  badges: BadgeSchema,
  rankSets: RankSetSchema,
  triggers: TriggerSchema,
  levels: LevelSchema,
  leaderboards: LeaderboardSchema,
  stores: StoreSchema,
  streaks: StreakSchema,
  missions: MissionSchema,
  segments: SegmentSchema,
  experiments: ExperimentSchema,
  leagues: LeagueSchema,
} as const;

export const CatalogSchema = z.strictObject({
  version: z.literal(1),
  settings: withDefaults(SettingsSchema),
  deliverables: list(DeliverableSchema),
  actions: list(ActionSchema),
  badges: list(BadgeSchema),
  rankSets: list(RankSetSchema),
  triggers: list(TriggerSchema),
  levels: list(LevelSchema),
  leaderboards: list(LeaderboardSchema),
  stores: list(StoreSchema),
  streaks: list(StreakSchema),
  missions: list(MissionSchema),
  segments: list(SegmentSchema),
  // Absent rather than defaulted: a catalog without moments keeps its hash.
  moments: z.preprocess((v) => v ?? undefined, MomentsSchema.optional()),
  experiments: list(ExperimentSchema),
  leagues: list(LeagueSchema),
}) satisfies z.ZodType<Catalog>;
