/**
 * Player tokens: what a Client key in a browser shows to read one player's own views (profile,
 * streaks, missions, ...), which a Client key alone may not read. The operator's back end, which
 * knows who is signed in, asks for one with its Server key (POST /v1/players/token) and hands it
 * to its page. A token is `<payload>.<signature>`, both base64url: the payload names the player
 * and when the token expires, the signature is an HMAC-SHA256 of the payload under the
 * deployment's secret. Nothing is stored per token, so every process that holds the secret
 * accepts it, before and after a restart.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ERRORS, refuse } from '../../domain/errors';
import { ok, type Result } from '../../domain/result';

/** The header a request shows its player token in. */
export const PLAYER_TOKEN_HEADER = 'X-Player-Token';
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** A day: a page asks for a fresh token at least as often as its player signs in. */
export const MAX_TOKEN_TTL_SECONDS = 86_400;
/** The shortest secret the keys file takes: 256 bits of a random hex or base64 string. */
export const MIN_SECRET_LENGTH = 32;

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

  constructor(secret: string) {
    this.secret = Buffer.from(secret, 'utf8');
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

/**
 * The secret tokens are signed with: the keys file's `playerTokenSecret` (every process of a
 * deployment reads the same file), else one generated on first start and kept in DATA_DIR beside
 * the development key (processes sharing the data directory share it; it outlives restarts).
 */
export function loadOrCreateTokenSecret(configured: string | null, dataDir: string): string {
  if (configured !== null) return configured;
  const file = path.join(dataDir, 'player-token-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  // Written whole, then linked into place: of two processes starting on one data directory, the
  // second to link finds the first's file (EEXIST) and reads it, never a half-written one.
  const written = `${file}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(written, secret + '\n', { mode: 0o600 });
  try {
    fs.linkSync(written, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  } finally {
    fs.rmSync(written, { force: true });
  }
}
