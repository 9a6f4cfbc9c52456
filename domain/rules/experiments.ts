/**
 * Who joins an experiment, in which variant, and the experiments an action is decided under
 * (docs/catalog.md, "Experiments"). Pure: the variant is a function of the experiment and the
 * player's id that anyone can recompute, and the rest reads the player's state as recorded.
 */
import { createHash } from 'node:crypto';
import type { ExperimentInForce } from '../catalog/experiments';
import type { Catalog, Experiment, ExperimentVariant } from '../catalog/schema';
import { appliesTo, type SegmentSubject } from '../player/segments';
import type { PlayerView } from '../player/state';
import { localIsoToEpochMs } from '../time/local-time';

/**
 * The variant the rule gives a player: the SHA-256 of the UTF-8 text `<experiment uid>:<playerId>`,
 * its first 4 bytes as a big-endian unsigned integer h, x = h / 2^32 * (sum of the weights); the
 * first variant, in catalog order, whose running total of weights exceeds x.
 */
export function variantFor(experiment: Pick<Experiment, 'uid' | 'variants'>, playerId: string): ExperimentVariant {
  const h = createHash('sha256').update(`${experiment.uid}:${playerId}`, 'utf8').digest().readUInt32BE(0);
  const total = experiment.variants.reduce((sum, v) => sum + v.weight, 0);
  const x = (h / 2 ** 32) * total;
  let running = 0;
  for (const variant of experiment.variants) {
    running += variant.weight;
    if (running > x) return variant;
  }
  // Not reached: the running total ends at the sum (the same additions), and x < sum since h < 2^32.
  return experiment.variants[experiment.variants.length - 1];
}

interface CompiledExperiment {
  def: Experiment;
  startMs: number | null;
  endMs: number | null;
}

const compiled = new WeakMap<Catalog, CompiledExperiment[]>();

/** The experiments with their windows as instants in the catalog's zone, once per catalog. */
function compileExperiments(catalog: Catalog): CompiledExperiment[] {
  let out = compiled.get(catalog);
  if (!out) {
    const tz = catalog.settings.timezone;
    const at = (iso: string | null) => (iso ? localIsoToEpochMs(iso, tz) : null);
    // A catalog version published before experiments existed has none.
    out = (catalog.experiments ?? []).map((def) => ({ def, startMs: at(def.startDate), endMs: at(def.endDate) }));
    compiled.set(catalog, out);
  }
  return out;
}

/** An experiment an action joins the player to. */
export interface ExperimentJoin {
  experimentUid: string;
  variantUid: string;
}

export interface ExperimentsOfAction {
  /** The experiments the action joins the player to (recorded as ExperimentJoined with its decision). */
  joins: ExperimentJoin[];
  /** Every experiment the action is decided under, with the player's variant, in catalog order. */
  inForce: ExperimentInForce[];
}

const NONE: ExperimentsOfAction = Object.freeze({ joins: [], inForce: [] });

/**
 * The experiments an action at `timestamp` is decided under: in each experiment whose window holds
 * the timestamp (start and end included, as badges'), the variant the player joined, or, for a
 * player in its segment now (their state before the action), the variant the rule gives them,
 * which they join. Outside the window the player plays the base game. A variant a later catalog
 * took away leaves its players on the base game.
 */
export function experimentsOfAction(
  catalog: Catalog,
  player: SegmentSubject & Pick<PlayerView, 'experiments'>,
  playerId: string,
  timestamp: number,
): ExperimentsOfAction {
  const experiments = compileExperiments(catalog);
  if (experiments.length === 0) return NONE;
  const joins: ExperimentJoin[] = [];
  const inForce: ExperimentInForce[] = [];
  for (const { def, startMs, endMs } of experiments) {
    if ((startMs !== null && timestamp < startMs) || (endMs !== null && timestamp > endMs)) continue;
    const joined = player.experiments.get(def.uid);
    if (joined) {
      if (def.variants.some((v) => v.uid === joined.variant)) inForce.push({ uid: def.uid, variant: joined.variant });
    } else if (appliesTo(catalog, def.segment, player)) {
      const variant = variantFor(def, playerId).uid;
      joins.push({ experimentUid: def.uid, variantUid: variant });
      inForce.push({ uid: def.uid, variant });
    }
  }
  return joins.length === 0 && inForce.length === 0 ? NONE : { joins, inForce };
}
