/**
 * The catalog rules that relate fields or entries (docs/catalog.md, "Validation: what stops the service from starting", and what they
 * imply): unique uids and identifiers, references to entries of the right kind, orderings, and
 * fields that depend on a type or mode. Every problem found is reported, one line each.
 *
 * It runs on a draft: the entries the schema accepted, at their index in the file. An entry the
 * schema rejected is known only by its raw uid (and identifier), so references to it are not
 * reported as unknown, but nothing that needs its content is checked.
 */
import { MAX_AMOUNT } from '../amount';
import { MAX_POWERUPS_PER_GRANT, MAX_SEASON_PRIZE_RANK, MAX_TOTAL_WEIGHT } from './limits';
import { patchedFields, type PatchableEntries, type PatchedFields, withPatchedFields } from './experiments';
import {
  type Action,
  type Badge,
  CATALOG_SECTIONS,
  type CatalogSection,
  type ChestConfig,
  type ChestPoolEntry,
  type Condition,
  type Deliverable,
  type DeliverableGrant,
  type Leaderboard,
  type League,
  type LeaguePrize,
  type Level,
  type Mission,
  type NumberRange,
  POINTS_REWARD,
  type PowerupConfig,
  type Experiment,
  type RankSet,
  type Segment,
  type Store,
  type Streak,
  type Trigger,
} from './types';

export interface UnparsedEntry {
  section: CatalogSection;
  index: number;
  /** The raw `uid` when it is a string. */
  uid: string | null;
  /** The raw `identifier` of an action when it is a string. */
  identifier: string | null;
}

type Holey<T> = readonly (T | undefined)[];

/**
 * A catalog's sections, one element per entry of the file: undefined where the schema rejected
 * the entry (listed in `unparsed`).
 */
export interface CatalogDraft {
  deliverables: Holey<Deliverable>;
  actions: Holey<Action>;
  badges: Holey<Badge>;
  rankSets: Holey<RankSet>;
  triggers: Holey<Trigger>;
  levels: Holey<Level>;
  leaderboards: Holey<Leaderboard>;
  stores: Holey<Store>;
  streaks: Holey<Streak>;
  missions: Holey<Mission>;
  segments: Holey<Segment>;
  experiments: Holey<Experiment>;
  leagues: Holey<League>;
  unparsed: readonly UnparsedEntry[];
}

type Kind =
  | 'deliverable'
  | 'action'
  | 'badge'
  | 'rank set'
  | 'trigger'
  | 'level'
  | 'leaderboard'
  | 'store'
  | 'bundle'
  | 'streak'
  | 'mission'
  | 'segment'
  | 'experiment'
  | 'league';

const KIND_OF_SECTION: Record<CatalogSection, Kind> = {
  deliverables: 'deliverable',
  actions: 'action',
  badges: 'badge',
  rankSets: 'rank set',
  triggers: 'trigger',
  levels: 'level',
  leaderboards: 'leaderboard',
  stores: 'store',
  streaks: 'streak',
  missions: 'mission',
  segments: 'segment',
  experiments: 'experiment',
  leagues: 'league',
};

/**
 * A problem of a variant's game at the patch's path when it is in a field the patch changes
 * (`<patch>.actions.act-share.points: ...`), else the game's problem line after the patch's path.
 */
function patchedProblem(patchPath: string, line: string, base: PatchableEntries, fields: PatchedFields): string {
  for (const [section, byUid] of fields)
    for (const [uid, changes] of byUid) {
      const index = base[section].findIndex((e) => e?.uid === uid);
      for (const field of Object.keys(changes)) {
        const prefix = `${section}[${index}].${field}`;
        const rest = line.slice(prefix.length);
        if (line.startsWith(prefix) && /^[.[:]/.test(rest)) return `${patchPath}.${section}.${uid}.${field}${rest}`;
      }
    }
  return `${patchPath}: ${line}`;
}

/** Problem lines for every cross-field and cross-entry rule the draft breaks, in file order per rule group. */
export function validateCatalog(draft: CatalogDraft): string[] {
  return new CatalogChecks(draft).run();
}

class CatalogChecks {
  private readonly problems: string[] = [];
  /** Every uid of the file, parsed or not: the first entry defining it. */
  private readonly defined = new Map<string, { kind: Kind; path: string }>();
  /** Action identifier -> the action (null when the schema rejected it). */
  private readonly actions = new Map<string, { action: Action | null; path: string }>();
  private readonly deliverables = new Map<string, Deliverable>();
  private readonly badges = new Map<string, Badge>();
  private readonly rankSets = new Map<string, RankSet>();

  constructor(private readonly draft: CatalogDraft) {}

  run(): string[] {
    this.registerEntries();
    this.each(this.draft.deliverables, 'deliverables', (d, path) => this.deliverable(path, d));
    this.each(this.draft.actions, 'actions', (a, path) => this.action(path, a));
    this.each(this.draft.badges, 'badges', (b, path) => {
      this.rule(path, b, 'badge');
      this.grants(`${path}.deliverables`, b.deliverables);
    });
    this.requiredBadgeCycles();
    this.each(this.draft.rankSets, 'rankSets', (r, path) => this.rankSet(path, r));
    this.each(this.draft.triggers, 'triggers', (t, path) => this.trigger(path, t));
    this.levels();
    this.each(this.draft.leaderboards, 'leaderboards', (b, path) => this.leaderboard(path, b));
    this.each(this.draft.stores, 'stores', (s, path) => this.store(path, s));
    this.each(this.draft.streaks, 'streaks', (s, path) => this.streak(path, s));
    this.each(this.draft.missions, 'missions', (m, path) => this.mission(path, m));
    this.each(this.draft.segments, 'segments', (s, path) => this.segment(path, s));
    this.each(this.draft.experiments, 'experiments', (e, path) => this.experiment(path, e));
    this.each(this.draft.leagues, 'leagues', (l, path) => this.league(path, l));
    return this.problems;
  }

  private report(path: string, message: string): void {
    this.problems.push(`${path}: ${message}`);
  }

  private each<T>(entries: Holey<T>, section: CatalogSection, check: (entry: T, path: string) => void): void {
    entries.forEach((entry, index) => {
      if (entry !== undefined) check(entry, `${section}[${index}]`);
    });
  }

  // --- uids and identifiers ---

  private registerEntries(): void {
    const unparsedAt = new Map(this.draft.unparsed.map((u) => [`${u.section}[${u.index}]`, u]));
    for (const section of CATALOG_SECTIONS) {
      const entries: Holey<{ uid: string }> = this.draft[section];
      entries.forEach((entry, index) => {
        const path = `${section}[${index}]`;
        const uid = entry?.uid ?? unparsedAt.get(path)?.uid;
        if (uid) this.registerUid(uid, KIND_OF_SECTION[section], path);
      });
    }
    this.each(this.draft.stores, 'stores', (store, path) =>
      store.bundles.forEach((b, i) => this.registerUid(b.uid, 'bundle', `${path}.bundles[${i}]`)),
    );
    this.draft.actions.forEach((action, index) => {
      const path = `actions[${index}]`;
      const identifier = action?.identifier ?? unparsedAt.get(path)?.identifier;
      if (identifier) this.registerIdentifier(identifier, action ?? null, path);
    });
    // The entries whose content other checks read; the first of a duplicated uid wins, as in `defined`.
    const keepFirst = <T extends { uid: string }>(into: Map<string, T>, entries: Holey<T>) => {
      for (const e of entries) if (e && !into.has(e.uid)) into.set(e.uid, e);
    };
    keepFirst(this.deliverables, this.draft.deliverables);
    keepFirst(this.badges, this.draft.badges);
    keepFirst(this.rankSets, this.draft.rankSets);
  }

  private registerUid(uid: string, kind: Kind, path: string): void {
    const first = this.defined.get(uid);
    if (first) this.report(`${path}.uid`, `duplicate uid "${uid}" (first at ${first.path})`);
    else this.defined.set(uid, { kind, path });
    // A deliverable uid "points" would be indistinguishable from the points reward of chests.
    if (kind === 'deliverable' && uid === POINTS_REWARD)
      this.report(`${path}.uid`, `"${POINTS_REWARD}" is reserved for chest rewards of points`);
  }

  private registerIdentifier(identifier: string, action: Action | null, path: string): void {
    const first = this.actions.get(identifier);
    if (first) this.report(`${path}.identifier`, `duplicate identifier "${identifier}" (first at ${first.path})`);
    else this.actions.set(identifier, { action, path });
  }

  // --- references ---

  /** A streak's conditions name actions; its milestones grant deliverables. */
  private streak(path: string, streak: Streak): void {
    streak.conditions.forEach((c, i) => this.actionNamed(`${path}.conditions[${i}].action`, c.action));
    streak.milestones.forEach((m, i) => this.grants(`${path}.milestones[${i}].deliverables`, m.deliverables));
    this.segmentOf(path, streak.segment);
  }

  /** The segment a badge, trigger, streak or mission applies to, when it names one. */
  private segmentOf(path: string, segment: string | null): void {
    if (segment !== null) this.refersTo(`${path}.segment`, segment, 'segment');
  }

  /** A segment's badges must exist and its ranges be in order. */
  private segment(path: string, segment: Segment): void {
    segment.conditions.forEach((c, i) => {
      const at = `${path}.conditions[${i}]`;
      if ('badge' in c) this.refersTo(`${at}.badge`, c.badge, 'badge');
      const range =
        'level' in c ? { name: 'level', ...c.level } : 'points' in c ? { name: 'points', ...c.points } : null;
      if (range && range.min !== null && range.max !== null)
        this.range(`${at}.${range.name}`, { min: range.min, max: range.max });
    });
  }

  /**
   * An experiment's segment and window, and each variant's game: its patch must name entries and
   * fields that exist, and base + patch must be a valid catalog. The games are checked on a whole
   * draft only (an entry the schema refused would make every variant's game repeat its problems).
   */
  private experiment(path: string, experiment: Experiment): void {
    this.segmentOf(path, experiment.segment);
    this.datesInOrder(path, experiment.startDate, experiment.endDate);
    experiment.variants.forEach((variant, i) => {
      const at = `${path}.variants[${i}].patch`;
      const { fields, problems } = patchedFields(this.draft, variant.patch);
      for (const line of problems) this.problems.push(`${at}.${line}`);
      if (problems.length > 0 || fields.size === 0 || this.draft.unparsed.length > 0) return;
      const base = new Set(this.baseProblems());
      const game = withPatchedFields(this.draft, fields);
      for (const line of validateCatalog({ ...game, experiments: [] }))
        if (!base.has(line)) this.problems.push(patchedProblem(at, line, this.draft, fields));
    });
  }

  private base: string[] | null = null;

  /** The problems of the base game (sections without experiments): a variant's game reports only its own. */
  private baseProblems(): string[] {
    return (this.base ??= validateCatalog({ ...this.draft, experiments: [] }));
  }

  /** A mission's window, the badge and level it requires, its steps' conditions and its grants. */
  private mission(path: string, mission: Mission): void {
    this.datesInOrder(path, mission.startDate, mission.endDate);
    if (mission.requires.badge !== null) this.refersTo(`${path}.requires.badge`, mission.requires.badge, 'badge');
    const level = mission.requires.level;
    if (level !== null && !this.draft.levels.some((l) => l?.level === level))
      this.report(`${path}.requires.level`, `no level ${level} in levels`);
    mission.steps.forEach((s, i) => this.condition(`${path}.steps[${i}].condition`, s.condition));
    this.grants(`${path}.deliverables`, mission.deliverables);
    this.segmentOf(path, mission.segment);
  }

  /** Reports a reference to nothing or to an entry of another kind; true when it names a `kind`. */
  private refersTo(path: string, uid: string, kind: Kind): boolean {
    const target = this.defined.get(uid);
    if (!target) {
      this.report(path, `unknown ${kind} "${uid}"`);
      return false;
    }
    if (target.kind !== kind) {
      this.report(path, `"${uid}" is a ${target.kind} (${target.path}), not a ${kind}`);
      return false;
    }
    return true;
  }

  private refersToPrize(path: string, uid: string): void {
    if (!this.refersTo(path, uid, 'deliverable')) return;
    const d = this.deliverables.get(uid);
    if (d && d.type !== 'Prize') this.report(path, `"${uid}" is a ${d.type} deliverable, not a Prize`);
  }

  /** The action a condition or metric names by identifier; undefined when unknown or unparsed. */
  private actionNamed(path: string, identifier: string): Action | undefined {
    const known = this.actions.get(identifier);
    if (known) return known.action ?? undefined;
    const target = this.defined.get(identifier);
    const byUid = target?.kind === 'action' ? this.draft.actions.find((a) => a?.uid === identifier) : undefined;
    this.report(
      path,
      byUid
        ? `"${identifier}" is an action uid; name the action identifier "${byUid.identifier}"`
        : `unknown action "${identifier}"`,
    );
    return undefined;
  }

  private grants(path: string, grants: readonly DeliverableGrant[]): void {
    grants.forEach((g, i) => {
      if (this.refersTo(`${path}[${i}].deliverable`, g.deliverable, 'deliverable'))
        this.powerupAmount(`${path}[${i}].amount`, g.deliverable, g.amount);
    });
  }

  /** Each powerup granted is an instance the player keeps: one grant makes at most MAX_POWERUPS_PER_GRANT. */
  private powerupAmount(path: string, deliverable: string, amount: number, factor = 1): void {
    if (this.deliverables.get(deliverable)?.kind === 'Powerup' && amount * factor > MAX_POWERUPS_PER_GRANT) {
      const scaled = factor === 1 ? '' : ` once multiplied by the largest scaling factor (${factor})`;
      this.report(
        path,
        `must be at most ${MAX_POWERUPS_PER_GRANT.toLocaleString('en-US')}${scaled} for a powerup (each one granted is an instance the player keeps)`,
      );
    }
  }

  /** Weights are relative: their total only has to be finite and far from float rounding. */
  private totalWeight(path: string, weights: readonly number[]): void {
    if (weights.reduce((total, w) => total + w, 0) > MAX_TOTAL_WEIGHT)
      this.report(path, `total weight must be at most ${MAX_TOTAL_WEIGHT.toLocaleString('en-US')}`);
  }

  private cost(path: string, cost: number, costDeliverable: string | null): void {
    if (costDeliverable !== null) this.refersToPrize(`${path}.costDeliverable`, costDeliverable);
    else if (cost > 0) this.report(`${path}.costDeliverable`, 'required when cost > 0');
  }

  // --- value relations ---

  private datesInOrder(
    path: string,
    start: string | null,
    end: string | null,
    names: readonly [string, string] = ['startDate', 'endDate'],
  ): void {
    // Same fixed-width format on both sides: string order is time order.
    if (start !== null && end !== null && start >= end)
      this.report(`${path}.${names[1]}`, `must be after ${names[0]} (${start})`);
  }

  private range(path: string, r: NumberRange): void {
    if (r.min > r.max) this.report(path, `min (${r.min}) must not be greater than max (${r.max})`);
  }

  // --- entries ---

  private deliverable(path: string, d: Deliverable): void {
    if (d.type !== 'Prize' && d.kind !== null) this.report(`${path}.kind`, 'only for Prize deliverables');
    if (d.chest !== null && d.kind !== 'Chest') this.report(`${path}.chest`, 'only for kind Chest');
    if (d.chest === null && d.kind === 'Chest') this.report(`${path}.chest`, 'required for kind Chest');
    if (d.powerup !== null && d.kind !== 'Powerup') this.report(`${path}.powerup`, 'only for kind Powerup');
    if (d.powerup === null && d.kind === 'Powerup') this.report(`${path}.powerup`, 'required for kind Powerup');
    if (d.expiry !== null && d.kind !== 'Currency') this.report(`${path}.expiry`, 'only for kind Currency');
    if (d.chest) this.chest(`${path}.chest`, d.chest);
    if (d.powerup) this.powerup(`${path}.powerup`, d.powerup);
  }

  private chest(path: string, c: ChestConfig): void {
    this.datesInOrder(path, c.startDate, c.endDate);
    this.range(`${path}.drawCount`, c.drawCount);
    // Custom amounts are multiplied by the factor of the player's level: the largest must keep them in range.
    const factor = c.scalingMode === 'Custom' ? Math.max(1, ...c.scaling.map((s) => s.factor)) : 1;
    if (c.scalingMode !== 'PlayerLevel') this.pool(`${path}.pool`, c.pool, factor);
    else if (c.pool.length > 0) this.report(`${path}.pool`, 'only for scalingMode None or Custom');

    if (c.scalingMode === 'PlayerLevel') {
      if (c.tiers.length === 0)
        this.report(`${path}.tiers`, 'at least one tier is required for scalingMode PlayerLevel');
      c.tiers.forEach((t, i) => {
        const tier = `${path}.tiers[${i}]`;
        if (t.minLevel > t.maxLevel)
          this.report(tier, `minLevel (${t.minLevel}) must not be greater than maxLevel (${t.maxLevel})`);
        if (t.drawCount) this.range(`${tier}.drawCount`, t.drawCount);
        this.pool(`${tier}.pool`, t.pool, 1);
      });
    } else if (c.tiers.length > 0) {
      this.report(`${path}.tiers`, 'only for scalingMode PlayerLevel');
    }

    if (c.scalingMode === 'Custom') {
      if (c.scaling.length === 0)
        this.report(`${path}.scaling`, 'at least one entry is required for scalingMode Custom');
      c.scaling.forEach((s, i) => {
        const previous = c.scaling[i - 1];
        if (previous && s.minLevel <= previous.minLevel) {
          this.report(
            `${path}.scaling[${i}].minLevel`,
            `must be greater than the previous minLevel (${previous.minLevel})`,
          );
        }
      });
    } else if (c.scaling.length > 0) {
      this.report(`${path}.scaling`, 'only for scalingMode Custom');
    }
  }

  private pool(path: string, pool: readonly ChestPoolEntry[], factor: number): void {
    if (pool.length === 0) {
      this.report(path, 'at least one entry is required');
      return;
    }
    pool.forEach((e, i) => {
      const amount = `${path}[${i}].amount.max`;
      if (e.reward !== POINTS_REWARD && this.refersTo(`${path}[${i}].reward`, e.reward, 'deliverable'))
        this.powerupAmount(amount, e.reward, e.amount.max, factor);
      this.range(`${path}[${i}].amount`, e.amount);
      if (factor !== 1 && e.amount.max * factor > MAX_AMOUNT)
        this.report(
          amount,
          `must be at most ${MAX_AMOUNT.toLocaleString('en-US')} once multiplied by the largest scaling factor (${factor}), the largest amount the engine holds`,
        );
    });
    if (pool.reduce((total, e) => total + e.weight, 0) <= 0) this.report(path, 'total weight must be greater than 0');
    this.totalWeight(
      path,
      pool.map((e) => e.weight),
    );
  }

  private powerup(path: string, p: PowerupConfig): void {
    p.targetPrizes.forEach((uid, i) => this.refersToPrize(`${path}.targetPrizes[${i}]`, uid));
    if (!p.neverExpires && p.timeoutSeconds <= 0)
      this.report(`${path}.timeoutSeconds`, 'must be greater than 0 unless neverExpires is true');
  }

  private action(path: string, a: Action): void {
    this.cost(path, a.cost, a.costDeliverable);
    const firstIndex = new Map<string, number>();
    a.actionObjects.forEach((o, i) => {
      const first = firstIndex.get(o.label);
      if (first !== undefined)
        this.report(
          `${path}.actionObjects[${i}].label`,
          `duplicate label "${o.label}" (first at ${path}.actionObjects[${first}])`,
        );
      else firstIndex.set(o.label, i);
    });
    this.grants(`${path}.deliverables`, a.deliverables);
  }

  /** What badges and triggers share. */
  private rule(path: string, r: Badge | Trigger, kind: 'badge' | 'trigger'): void {
    this.datesInOrder(path, r.startDate, r.endDate);
    if (r.requiredBadge !== null) this.refersTo(`${path}.requiredBadge`, r.requiredBadge, 'badge');
    r.conditions.forEach((c, i) => this.condition(`${path}.conditions[${i}]`, c));
    this.segmentOf(path, r.segment);
    if (r.type !== 'Ranked') {
      if (r.rankSet !== null) this.report(`${path}.rankSet`, `only for Ranked ${kind}s`);
    } else if (r.rankSet === null) {
      this.report(`${path}.rankSet`, `required for Ranked ${kind}s`);
    } else if (this.refersTo(`${path}.rankSet`, r.rankSet, 'rank set')) {
      // A `sum` rank totals the detail named by a condition's challenge.sum.field.
      const usesSum = this.rankSets.get(r.rankSet)?.ranks.some((rank) => rank.sum !== null);
      if (usesSum && !r.conditions.some((c) => c.challenge.sum !== null)) {
        this.report(
          `${path}.rankSet`,
          `rank set "${r.rankSet}" has sum thresholds, so a condition needs challenge.sum to name the summed field`,
        );
      }
    }
  }

  private condition(path: string, c: Condition): void {
    const action = this.actionNamed(`${path}.action`, c.action);
    const sum = c.challenge.sum;
    if (sum && action && !action.actionObjects.some((o) => o.label === sum.field && o.type === 'Number')) {
      this.report(`${path}.challenge.sum.field`, `"${sum.field}" is not a Number actionObject of action "${c.action}"`);
    }
    const between = c.challenge.between;
    if (between) this.datesInOrder(`${path}.challenge.between`, between.start, between.end, ['start', 'end']);
  }

  /** Reports each requiredBadge cycle once, at its member that comes first in the file. */
  private requiredBadgeCycles(): void {
    const reported = new Set<string>();
    this.each(this.draft.badges, 'badges', (badge, path) => {
      const chain: string[] = [];
      let uid: string | null = badge.uid;
      while (uid !== null && !chain.includes(uid)) {
        chain.push(uid);
        uid = this.badges.get(uid)?.requiredBadge ?? null;
      }
      if (uid !== badge.uid || reported.has(badge.uid)) return;
      chain.forEach((member) => reported.add(member));
      this.report(`${path}.requiredBadge`, `requiredBadge cycle: ${[...chain, badge.uid].join(' -> ')}`);
    });
  }

  private rankSet(path: string, r: RankSet): void {
    let lastTimes: { rank: number; times: number } | null = null;
    let lastSum: { rank: number; sum: number } | null = null;
    r.ranks.forEach((rank, i) => {
      const at = `${path}.ranks[${i}]`;
      const previous = r.ranks[i - 1];
      if (previous && rank.rank <= previous.rank)
        this.report(`${at}.rank`, `must be greater than the previous rank (${previous.rank})`);
      if ((rank.times === null) === (rank.sum === null)) this.report(at, 'needs exactly one of times and sum');
      // Ranks ascend: a higher rank must need more than a lower one of the same measure.
      if (rank.times !== null) {
        if (lastTimes && rank.times <= lastTimes.times)
          this.report(`${at}.times`, `must be greater than the times of rank ${lastTimes.rank} (${lastTimes.times})`);
        lastTimes = { rank: rank.rank, times: rank.times };
      }
      if (rank.sum !== null) {
        if (lastSum && rank.sum <= lastSum.sum)
          this.report(`${at}.sum`, `must be greater than the sum of rank ${lastSum.rank} (${lastSum.sum})`);
        lastSum = { rank: rank.rank, sum: rank.sum };
      }
      this.grants(`${at}.deliverables`, rank.deliverables);
    });
  }

  private trigger(path: string, t: Trigger): void {
    this.rule(path, t, 'trigger');
    this.grants(`${path}.deliverables`, t.deliverables);
    if (t.randomizedPrize) {
      if (t.deliverables.length === 0)
        this.report(`${path}.deliverables`, 'at least one deliverable is required when randomizedPrize is true');
      this.totalWeight(
        `${path}.deliverables`,
        t.deliverables.map((g) => g.weight ?? 0),
      );
      t.deliverables.forEach((g, i) => {
        if (g.weight === null || g.weight <= 0)
          this.report(`${path}.deliverables[${i}].weight`, 'must be greater than 0 when randomizedPrize is true');
      });
    }
    if (t.limited && t.limit < 1) this.report(`${path}.limit`, 'must be at least 1 when limited is true');
  }

  private levels(): void {
    const byNumber = new Map<number, { level: Level; index: number }>();
    this.each(this.draft.levels, 'levels', (level, path) => {
      const first = byNumber.get(level.level);
      if (first) this.report(`${path}.level`, `duplicate level ${level.level} (first at levels[${first.index}])`);
      else byNumber.set(level.level, { level, index: Number(path.slice('levels['.length, -1)) });
      this.grants(`${path}.deliverables`, level.deliverables);
    });
    if (byNumber.size === 0) return;

    // Decision: levels, when given, start at level 1 with target 0 (every player holds level 1).
    const one = byNumber.get(1);
    const levelUnparsed = this.draft.unparsed.some((u) => u.section === 'levels');
    if (!one && !levelUnparsed) this.report('levels', 'level 1 (with target 0) is required when levels are given');
    if (one && one.level.target !== 0) this.report(`levels[${one.index}].target`, 'level 1 must have target 0');

    const sorted = [...byNumber.values()].sort((a, b) => a.level.level - b.level.level);
    sorted.forEach(({ level, index }, i) => {
      const previous = sorted[i - 1]?.level;
      if (previous && level.target <= previous.target) {
        this.report(
          `levels[${index}].target`,
          `must be greater than the target of level ${previous.level} (${previous.target})`,
        );
      }
    });
  }

  private leaderboard(path: string, b: Leaderboard): void {
    if (b.type === 1 && b.season === null) this.report(`${path}.season`, 'required for Season leaderboards (type 1)');
    if (b.type === 0 && b.season !== null) this.report(`${path}.season`, 'only for Season leaderboards (type 1)');
    if (b.aggregate !== null && b.scope === null)
      this.report(`${path}.aggregate`, 'needs scope (the attribute whose values it ranks)');
    if (b.metric !== 'points') this.actionNamed(`${path}.metric.action`, b.metric.action);
    this.datesInOrder(path, b.startDate, b.endDate);
    const prizes = b.prizes ?? [];
    if (prizes.length === 0) return;
    // The settlement ranks players on one standings: a Standard board has no season to end, a scoped one many standings.
    if (b.type !== 1) this.report(`${path}.prizes`, 'only for Season leaderboards (a period)');
    else if (b.scope !== null) this.report(`${path}.prizes`, 'only for a board without scope');
    this.rankPrizes(`${path}.prizes`, prizes, MAX_SEASON_PRIZE_RANK, String(MAX_SEASON_PRIZE_RANK));
  }

  /**
   * A league's metric names an action; its tiers have unique uids, nobody promoted off the top or
   * demoted off the bottom, and prizes whose rank ranges fit a cohort and do not overlap.
   */
  private league(path: string, l: League): void {
    if (l.metric !== 'points') this.actionNamed(`${path}.metric.action`, l.metric.action);
    const first = new Map<string, number>();
    l.tiers.forEach((tier, i) => {
      const at = `${path}.tiers[${i}]`;
      const seen = first.get(tier.uid);
      if (seen !== undefined)
        this.report(`${at}.uid`, `duplicate tier uid "${tier.uid}" (first at ${path}.tiers[${seen}])`);
      else first.set(tier.uid, i);
      if (i === l.tiers.length - 1 && tier.promote > 0)
        this.report(`${at}.promote`, 'must be 0 on the top tier (there is no tier to promote to)');
      if (i === 0 && tier.demote > 0)
        this.report(`${at}.demote`, 'must be 0 on the lowest tier (there is no tier to demote to)');
      for (const [name, count] of [
        ['promote', tier.promote],
        ['demote', tier.demote],
      ] as const)
        if (count > l.cohortSize) this.report(`${at}.${name}`, `must be at most cohortSize (${l.cohortSize})`);
      this.rankPrizes(`${at}.prizes`, tier.prizes, l.cohortSize, `cohortSize (${l.cohortSize})`);
    });
  }

  /** Prizes by rank: ranges ending at most at `lastRank`, not overlapping, granting what exists. */
  private rankPrizes(path: string, prizes: readonly LeaguePrize[], lastRank: number, lastRankName: string): void {
    const sorted = [...prizes.entries()].sort(([, a], [, b]) => a.ranks[0] - b.ranks[0]);
    sorted.forEach(([index, prize], k) => {
      const prizeAt = `${path}[${index}]`;
      if (prize.ranks[1] > lastRank) this.report(`${prizeAt}.ranks`, `must end at most at ${lastRankName}`);
      const before = sorted[k - 1];
      if (before && before[1].ranks[1] >= prize.ranks[0])
        this.report(`${prizeAt}.ranks`, `overlaps ${path}[${before[0]}] (ranks ${before[1].ranks.join(' to ')})`);
      this.grants(`${prizeAt}.deliverables`, prize.deliverables);
    });
  }

  private store(path: string, s: Store): void {
    this.datesInOrder(path, s.startDate, s.endDate);
    s.bundles.forEach((b, i) => {
      const at = `${path}.bundles[${i}]`;
      this.cost(at, b.cost, b.costDeliverable);
      this.grants(`${at}.contents`, b.contents);
    });
  }
}
