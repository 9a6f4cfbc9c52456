/**
 * What the benchmark sends: the action mix, player ids and reference ids, and the keys file and
 * catalog the service under test is started with.
 */
import { seededRandom } from './seeded-random';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const BENCH_CATALOG_FILE = path.join(__dirname, 'catalog.yaml');
export const SERVER_KEY = 'bench-server-key-0123456789abcdef';

/** The keys file of the service under test: one Server key, with no rate limit. */
export function writeKeysFile(dir: string): string {
  const file = path.join(dir, 'keys.yaml');
  fs.writeFileSync(
    file,
    ['keys:', `  - { name: bench, tier: Server, key: "${SERVER_KEY}", rateLimit: { perSecond: 0 } }`, ''].join('\n'),
  );
  return file;
}

/** Seeded, so a run's mix does not depend on Math.random's state. */
export const prng = seededRandom;

/** A tag that makes the ids of one run (or one figure) distinct from every other. */
export const runTag = (): string => randomBytes(4).toString('hex');

/** A canonical player uuid from a run tag (8 hex) and an index. */
export const playerId = (tag: string, index: number): string =>
  `${tag}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;

export interface ActionBody {
  name: string;
  referenceId: string;
  playerId: string;
  timestamp?: number;
  details?: { name: string; value: string }[];
  actions?: ActionBody[];
}

const CATEGORIES = ['electronics', 'books', 'food'];

/**
 * The action mix: mostly plain actions, with purchases (badges, ranks, levels), repeated plays
 * (a windowed repeatable badge), failed deposits (a repeatable trigger), logins (pointGap, a
 * limited one-time trigger) and spins whose cost a new player often cannot pay (9001).
 */
export const MIX: readonly { name: string; weight: number }[] = [
  { name: 'login', weight: 25 },
  { name: 'play', weight: 30 },
  { name: 'purchase', weight: 25 },
  { name: 'deposit_failed', weight: 12 },
  { name: 'spin', weight: 8 },
];
const TOTAL_WEIGHT = MIX.reduce((s, m) => s + m.weight, 0);

export function pickAction(random: () => number): string {
  let roll = random() * TOTAL_WEIGHT;
  for (const m of MIX) {
    if (roll < m.weight) return m.name;
    roll -= m.weight;
  }
  return MIX[MIX.length - 1].name;
}

export function detailsFor(name: string, random: () => number): { name: string; value: string }[] | undefined {
  if (name === 'purchase') {
    return [
      { name: 'amount', value: String(10 + Math.floor(random() * 590)) },
      { name: 'category', value: CATEGORIES[Math.floor(random() * CATEGORIES.length)] },
    ];
  }
  if (name === 'play') return [{ name: 'score', value: String(Math.floor(random() * 1000)) }];
  return undefined;
}

/** One action of the mix for a player. */
export function actionBody(
  player: string,
  referenceId: string,
  random: () => number,
  name = pickAction(random),
): ActionBody {
  const details = detailsFor(name, random);
  return details ? { name, referenceId, playerId: player, details } : { name, referenceId, playerId: player };
}

/** Actions of the mix, each for a random player of a pool and with a new referenceId. */
export function mixedActions(options: { players: number; seed?: number }): (name?: string) => ActionBody {
  const tag = runTag();
  const random = prng(options.seed ?? 42);
  let seq = 0;
  return (name) => actionBody(playerId(tag, Math.floor(random() * options.players)), `${tag}-r${seq++}`, random, name);
}

/**
 * Request bodies over a pool of players: each action a random player of the pool and a new
 * referenceId, so the rules fire as players accumulate history during the run. With `nested`,
 * each body carries that many actions (the outer one and `nested - 1` in `actions`).
 */
export function mixedBodies(options: { players: number; seed?: number; nested?: number }): () => string {
  const one = mixedActions(options);
  return () => {
    if (!options.nested || options.nested <= 1) return JSON.stringify(one());
    // A failed outer action fails the whole request (its nested actions are not applied), so a
    // batch opens with an action that always succeeds.
    return JSON.stringify(withNested(one('play'), options.nested - 1, one));
  };
}

export function withNested(outer: ActionBody, count: number, one: () => ActionBody): ActionBody {
  if (count <= 0) return outer;
  const actions: ActionBody[] = [];
  for (let i = 0; i < count; i++) actions.push(one());
  return { ...outer, actions };
}
