/**
 * Player tokens: what a Client key in a browser shows to read one player's own views (profile,
 * streaks, missions, ...), which a Client key alone may not read. The operator's back end, which
 * knows who is signed in, asks for one with its Server key (POST /v1/players/token) and hands it
 * to its page. A token is `<payload>.<signature>`, both base64url: the payload names the player
 * and when the token expires, the signature is an HMAC-SHA256 of the payload under the
 * deployment's secret. Nothing is stored per token, so every process that holds the secret
 * accepts it, before and after a restart. The secret is the keys file's `playerTokenSecret`, else
 * one kept in the players' key store under PLAYER_TOKEN_SECRET_ID (app/service.ts): both are
 * shared by every process of a deployment.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ERRORS, refuse } from '../../../domain/errors';
import { ok, type Result } from '../../../domain/result';

/** The header a request shows its player token in. */
export const PLAYER_TOKEN_HEADER = 'X-Player-Token';
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** A day: a page asks for a fresh token at least as often as its player signs in. */
export const MAX_TOKEN_TTL_SECONDS = 86_400;
/** The shortest secret the keys file takes: 256 bits of a random hex or base64 string. */
export const MIN_SECRET_LENGTH = 32;
/** Where the key store keeps the generated secret: an id no player has (players' ids are UUIDs). */
export const PLAYER_TOKEN_SECRET_ID = 'service:player-token-secret';

/** What a token says, once its signature is checked. */
interface TokenClaims {
  playerId: string;
  /** Unix ms. */
  expiresAt: number;
}

export interface IssuedToken extends TokenClaims {
  token: string;
}

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export class PlayerTokens {
  private readonly secret: Buffer;

  constructor(secret: string | Buffer) {
    this.secret = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  }

  private sign(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload, 'utf8').digest();
  }

  issue(playerId: string, ttlSeconds: number, now: number): IssuedToken {
    const expiresAt = now + ttlSeconds * 1000;
    const payload = encode(JSON.stringify({ p: playerId, e: expiresAt }));
    return { token: `${payload}.${this.sign(payload).toString('base64url')}`, playerId, expiresAt };
  }

  /** The player a token is for: 4005 when it is not one this deployment signed, 4006 once it has expired. */
  verify(token: string, now: number): Result<string> {
    const [payload, signature, ...rest] = token.trim().split('.');
    if (!payload || !signature || rest.length) return refuse(ERRORS.PLAYER_TOKEN_INVALID);
    const expected = this.sign(payload);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return refuse(ERRORS.PLAYER_TOKEN_INVALID);
    const claims = parseClaims(payload);
    // Signed by this deployment, so well formed unless the secret was shared with something else.
    if (!claims) return refuse(ERRORS.PLAYER_TOKEN_INVALID);
    if (now >= claims.expiresAt)
      return refuse(ERRORS.PLAYER_TOKEN_EXPIRED, `it expired at ${new Date(claims.expiresAt).toISOString()}`);
    return ok(claims.playerId);
  }
}

function parseClaims(payload: string): TokenClaims | null {
  try {
    const raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p?: unknown; e?: unknown };
    return typeof raw.p === 'string' && typeof raw.e === 'number' ? { playerId: raw.p, expiresAt: raw.e } : null;
  } catch {
    return null;
  }
}
