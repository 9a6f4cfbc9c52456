/**
 * CORS for browser pages that use Client keys: only the origins whose host is a tenant domain of
 * some Client key, and only on the routes a Client key may call. Any other origin, and every
 * route only Server or Mobile keys may call, gets no CORS headers, so a browser never lets a
 * page of another site read it. Client keys name their tenant in `Origin` (docs/api.md, "Auth").
 */
import type { Request, Response } from 'express';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency';
import { tiersOf, type AnyRoute } from './route';
import { PLAYER_TOKEN_HEADER } from '../auth/player-tokens';

/** The headers a browser page may send: the key, the body type, the tenant, the request's id, retries, read-your-writes and the player's token. */
const ALLOWED_HEADERS = [
  'AuthKey',
  'Authorization',
  'Content-Type',
  'X-Tenant-Domain',
  'X-Request-Id',
  IDEMPOTENCY_HEADER,
  'X-Min-Position',
  PLAYER_TOKEN_HEADER,
].join(', ');
/** The headers a page may read from an answer. */
const EXPOSED_HEADERS = ['X-Request-Id', 'X-Position', 'Retry-After', REPLAYED_HEADER].join(', ');
/** How long a browser may cache a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

interface ClientRoute {
  method: string;
  path: RegExp;
}

const pathPattern = (path: string): RegExp => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`);

/**
 * The host of an Origin header, or null for none, `null` or a malformed one. A browser sends
 * `scheme://host[:port]` and nothing more, as the URL standard serializes it: a value with
 * credentials, a path, a query or another spelling is no browser's origin and gets no CORS answer.
 */
function originHost(origin: string | undefined): string | null {
  if (!origin || origin === 'null') return null;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin ? url.hostname : null;
  } catch {
    return null;
  }
}

/**
 * Sets a request's CORS headers; answers a preflight (OPTIONS) itself and says so (true), so the
 * request goes no further.
 */
export function cors(
  routes: readonly AnyRoute[],
  clientDomains: ReadonlySet<string>,
): (req: Request, res: Response) => boolean {
  const clientRoutes: ClientRoute[] = routes
    .filter((r) => tiersOf(r).includes('Client'))
    .map((r) => ({ method: r.method, path: pathPattern(r.path) }));
  /** The method a Client route at `path` takes, or null when no Client route is there. */
  const clientMethod = (path: string): string | null => clientRoutes.find((r) => r.path.test(path))?.method ?? null;

  return (req: Request, res: Response) => {
    const origin = req.get('Origin');
    const host = originHost(origin);
    // Server-to-server calls send no Origin: nothing to look up.
    const method = host !== null && clientDomains.has(host) ? clientMethod(req.path) : null;
    const allowed = method !== null;
    res.setHeader('Cross-Origin-Resource-Policy', allowed ? 'cross-origin' : 'same-origin');
    if (host !== null) res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      // A preflight: answered here, with the CORS headers only when the origin and route allow them.
      if (allowed && req.get('Access-Control-Request-Method') === method) {
        res.setHeader('Access-Control-Allow-Origin', origin!);
        res.setHeader('Access-Control-Allow-Methods', method);
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
      }
      res.status(204).end();
      return true;
    }
    if (allowed && req.method === method) {
      res.setHeader('Access-Control-Allow-Origin', origin!);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    return false;
  };
}
