import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';

export type Tier = 'Server' | 'Mobile' | 'Client';

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
}

const keyEntry = z
  .object({
    name: z.string().min(1).max(100),
    tier: z.enum(['Server', 'Mobile', 'Client']),
    key: z.string().min(16, 'must be at least 16 characters').optional(),
    sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters').optional(),
    tenantDomains: z.array(z.string().min(1)).default([]),
    rateLimit: z.object({ perSecond: z.number().min(0), burst: z.number().min(0).optional() }).optional(),
  })
  .refine((k) => (k.key === undefined) !== (k.sha256 === undefined), { message: 'give exactly one of key or sha256' });

const keysFile = z.object({ keys: z.array(keyEntry).min(1) });

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function parseKeysFile(text: string, fileName: string): { ok: true; keys: ApiKey[] } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = fileName.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    return { ok: false, problems: [`${fileName}: not valid ${fileName.endsWith('.json') ? 'JSON' : 'YAML'}: ${(e as Error).message}`] };
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
    keys: parsed.data.keys.map((k) => ({
      name: k.name,
      tier: k.tier,
      digest: k.key !== undefined ? sha256(k.key) : Buffer.from(k.sha256!, 'hex'),
      tenantDomains: k.tenantDomains.map((d) => d.toLowerCase()),
      rateLimit: k.rateLimit ? { perSecond: k.rateLimit.perSecond, burst: k.rateLimit.burst ?? k.rateLimit.perSecond * 2 } : null,
    })),
  };
}

function formatPath(p: PropertyKey[]): string {
  return p.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), '');
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
  return { key, created, apiKey: { name: 'dev', tier: 'Server', digest: sha256(key), tenantDomains: [], rateLimit: null } };
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
}
