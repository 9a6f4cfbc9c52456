/** Which key may call what: tiers, tenant domains, nested actions. */
import type { Request } from 'express';
import { failure, type Failure } from '../../../domain/result';
import type { ApiKey, KeyRing, Tier } from './keys';

/** Changes any key that writes may make: Client keys too, never Auditor keys (they only read). */
export const WRITERS: readonly Tier[] = ['Server', 'Mobile', 'Client'];
/** Changes only the game's own backends may make. */
export const SERVER_MOBILE: readonly Tier[] = ['Server', 'Mobile'];
/** Reads every key may make. */
export const EVERY_TIER: readonly Tier[] = ['Server', 'Mobile', 'Client', 'Auditor'];
/** Reads for operators and auditors: the catalog's own views, the audit trail, the event feed. */
export const OPERATORS: readonly Tier[] = ['Server', 'Auditor'];

function presentedKey(req: Request): string | null {
  const authKey = req.get('AuthKey');
  if (authKey) return authKey.trim();
  const authorization = req.get('Authorization');
  const match = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  return match ? match[1].trim() : null;
}

/** The tenant domain a request names: `X-Tenant-Domain`, else the host of `Origin`. */
function tenantDomain(req: Request): string | null {
  const explicit = req.get('X-Tenant-Domain');
  if (explicit) return explicit.trim().toLowerCase();
  const origin = req.get('Origin');
  if (!origin || origin === 'null') return null;
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return origin.trim().toLowerCase();
  }
}

/**
 * The key checks, in their order (docs/api.md, "Auth"): 4001, 4002, 4003 (tenant mismatch),
 * 4004 (nested actions from a Client key), 4003 (tier not allowed).
 */
export function authorize(
  req: Request,
  keys: KeyRing,
  tiers: readonly Tier[],
  sendsNestedActions: boolean,
): { ok: true; key: ApiKey } | { ok: false; failure: Failure } {
  const presented = presentedKey(req);
  const key = presented ? keys.find(presented) : null;
  if (!key) return { ok: false, failure: failure(4001, 'Invalid AuthKey') };
  if (key.tier === 'Client') {
    const domain = tenantDomain(req);
    if (!domain)
      return { ok: false, failure: failure(4002, 'Missing tenant domain: send it in X-Tenant-Domain or Origin') };
    if (!key.tenantDomains.includes(domain))
      return { ok: false, failure: failure(4003, `Tenant domain "${domain}" is not allowed for this key`) };
    if (sendsNestedActions)
      return {
        ok: false,
        failure: failure(4004, 'Nested actions are not allowed for Client keys; send them with a Server key'),
      };
  }
  if (!tiers.includes(key.tier))
    return { ok: false, failure: failure(4003, `Auth tier ${key.tier} is not allowed for this operation`) };
  return { ok: true, key };
}
