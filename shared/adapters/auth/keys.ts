/** API keys: the keys file, the generated development key, and constant-time lookup. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { formatPath } from '../../../domain/catalog/problems';
import { MAX_AMOUNT } from '../../../domain/amount';
import { MIN_SECRET_LENGTH } from './player-tokens';

export type Tier = 'Server' | 'Mobile' | 'Client' | 'Auditor';

export interface RateLimitSetting {
  perSecond: number;
  burst: number;
}

/** A configured key as held in memory: only the digest of the secret is kept. */
export interface ApiKey {
  name: string;
  tier: Tier;
  digest: Buffer;
  tenantDomains: string[];
  rateLimit: RateLimitSetting | null;
  /** The largest `multiplier` an action sent with this key may carry. */
  maxMultiplier: number;
  /** How far in the past (seconds) an action's `timestamp` sent with this key may lie; null: no limit. */
  maxTimestampAgeSeconds: number | null;
}

/**
 * Default largest request `multiplier` per tier (a key's `maxMultiplier` overrides it). Server
 * keys belong to the operator's back end, which uses large multipliers for bulk grants; Mobile
 * and Client keys sit in apps and browsers that anyone can script, so an action they send counts
 * once. Auditor keys send no actions.
 */
export const DEFAULT_MAX_MULTIPLIER: Readonly<Record<Tier, number>> = {
  Server: 1_000_000,
  Mobile: 1,
  Client: 1,
  Auditor: 0,
};

/**
 * Default oldest action `timestamp` per tier, in seconds before now (a key's
 * `maxTimestampAgeSeconds` overrides it; null: no limit). Caps and streaks follow the timestamp,
 * so a scriptable app that could date actions freely could fill past days' caps and build a streak
 * in seconds; the operator's back end imports history and delivers late, so it has no limit.
 */
export const DEFAULT_MAX_TIMESTAMP_AGE_SECONDS: Readonly<Record<Tier, number | null>> = {
  Server: null,
  Mobile: 300,
  Client: 300,
  Auditor: 0,
};

/** What `maxTimestampAgeSeconds` says: `unlimited`, or the number of seconds. */
const UNLIMITED = 'unlimited';

const keyEntry = z
  .object({
    name: z.string().min(1).max(100),
    tier: z.enum(['Server', 'Mobile', 'Client', 'Auditor']),
    key: z.string().min(16, 'must be at least 16 characters').optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
    tenantDomains: z.array(z.string().min(1)).default([]),
    rateLimit: z.object({ perSecond: z.number().min(0), burst: z.number().min(0).optional() }).optional(),
    // A multiplier scales amounts, which stay within MAX_AMOUNT: a larger limit could never be used.
    maxMultiplier: z
      .number()
      .gt(0, 'must be greater than 0')
      .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
      .optional(),
    maxTimestampAgeSeconds: z
      .union([z.literal(UNLIMITED), z.number().int().min(0, 'must be at least 0')], {
        error: `must be a whole number of seconds or "${UNLIMITED}"`,
      })
      .optional(),
  })
  .refine((k) => (k.key === undefined) !== (k.sha256 === undefined), { message: 'give exactly one of key or sha256' });

const keysFile = z.object({
  keys: z.array(keyEntry).min(1),
  // Signs player tokens (player-tokens.ts): every process of a deployment reads this file, so each accepts the others' tokens.
  playerTokenSecret: z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters (openssl rand -hex 32)`)
    .optional(),
});

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function parseKeysFile(
  text: string,
  fileName: string,
): { ok: true; keys: ApiKey[]; playerTokenSecret: string | null } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = fileName.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    return {
      ok: false,
      problems: [`${fileName}: not valid ${fileName.endsWith('.json') ? 'JSON' : 'YAML'}: ${(e as Error).message}`],
    };
  }
  const parsed = keysFile.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`) };
  }
  const problems: string[] = [];
  const names = new Set<string>();
  parsed.data.keys.forEach((k, i) => {
    if (names.has(k.name)) problems.push(`keys[${i}].name: duplicate key name "${k.name}"`);
    names.add(k.name);
  });
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    playerTokenSecret: parsed.data.playerTokenSecret ?? null,
    keys: parsed.data.keys.map((k) => ({
      name: k.name,
      tier: k.tier,
      digest: k.key !== undefined ? sha256(k.key) : Buffer.from(k.sha256!, 'hex'),
      tenantDomains: k.tenantDomains.map((d) => d.toLowerCase()),
      rateLimit: k.rateLimit
        ? { perSecond: k.rateLimit.perSecond, burst: k.rateLimit.burst ?? k.rateLimit.perSecond * 2 }
        : null,
      maxMultiplier: k.maxMultiplier ?? DEFAULT_MAX_MULTIPLIER[k.tier],
      maxTimestampAgeSeconds:
        k.maxTimestampAgeSeconds === undefined
          ? DEFAULT_MAX_TIMESTAMP_AGE_SECONDS[k.tier]
          : k.maxTimestampAgeSeconds === UNLIMITED
            ? null
            : k.maxTimestampAgeSeconds,
    })),
  };
}

/**
 * With no keys file, one random Server key is generated on first start and kept in DATA_DIR,
 * so a developer can call the API at once and the key stays the same across restarts.
 */
export function loadOrCreateDevKey(dataDir: string): { key: string; apiKey: ApiKey; created: boolean } {
  const file = path.join(dataDir, 'dev-api-key');
  let key: string;
  let created = false;
  if (fs.existsSync(file)) {
    key = fs.readFileSync(file, 'utf8').trim();
  } else {
    key = randomBytes(24).toString('hex');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, key + '\n', { mode: 0o600 });
    created = true;
  }
  return {
    key,
    created,
    apiKey: {
      name: 'dev',
      tier: 'Server',
      digest: sha256(key),
      tenantDomains: [],
      rateLimit: null,
      maxMultiplier: DEFAULT_MAX_MULTIPLIER.Server,
      maxTimestampAgeSeconds: DEFAULT_MAX_TIMESTAMP_AGE_SECONDS.Server,
    },
  };
}

/** Finds the key whose digest matches, comparing against every key in constant time. */
export class KeyRing {
  constructor(private readonly keys: ApiKey[]) {}

  find(presented: string): ApiKey | null {
    const digest = sha256(presented);
    let found: ApiKey | null = null;
    for (const k of this.keys) {
      // No early exit: the time taken does not reveal which key (if any) matched.
      if (timingSafeEqual(k.digest, digest) && found === null) found = k;
    }
    return found;
  }

  /** The tenant domains of the Client keys: the web origins that may call the API from a browser. */
  clientDomains(): Set<string> {
    return new Set(this.keys.filter((k) => k.tier === 'Client').flatMap((k) => k.tenantDomains));
  }
}
