/**
 * Player tokens (POST /v1/players/token, X-Player-Token): a Server key gets one for a player, and
 * a Client key with it reads that player's own views and no other player's; a token forged,
 * expired or for another player is refused with its own code; one outlives a restart, and every
 * process holding the keys file's secret accepts the others' tokens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseKeysFile } from '../../shared/adapters/auth/keys';
import {
  auditor,
  client,
  KEYS,
  mobile,
  server,
  startTestService,
  tempDir,
  writeKeysFile,
  type TestService,
} from '../support/service';

const MINUTE = 60_000;
let clock = Date.UTC(2026, 10, 29, 12);
let t: TestService;

beforeAll(async () => {
  t = await startTestService({ now: () => clock });
});
afterAll(() => t?.close());

const issue = (body: unknown, headers: Record<string, string> = server, on: TestService = t) =>
  on.http
    .post('/v1/players/token')
    .set(headers)
    .send(body as object);

async function tokenOf(playerId: string, on: TestService = t): Promise<string> {
  const res = await issue({ playerId }, server, on);
  expect(res.body.code).toBe(200);
  return res.body.data.token as string;
}

async function newPlayer(on: TestService = t): Promise<string> {
  const playerId = randomUUID();
  expect((await on.http.post('/v1/player/create').set(server).send({ playerId })).body.code).toBe(200);
  return playerId;
}

const withToken = (token: string) => ({ ...client, 'X-Player-Token': token });
const profile = (playerId: string, headers: Record<string, string>, on: TestService = t) =>
  on.http.post('/v1/player/profile').set(headers).send({ playerId });

describe('POST /v1/players/token', () => {
  it('gives a Server key a token of the player, for an hour unless asked for less or more (up to a day)', async () => {
    const playerId = randomUUID().toUpperCase();
    const res = await issue({ playerId });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
      playerId: playerId.toLowerCase(),
      expiresAt: clock + 60 * MINUTE,
    });
    expect((await issue({ playerId, ttlSeconds: 60 })).body.data.expiresAt).toBe(clock + MINUTE);
    expect((await issue({ playerId, ttlSeconds: 86_400 })).body.data.expiresAt).toBe(clock + 24 * 60 * MINUTE);
  });

  it('refuses every other tier (4003) and a malformed body (1001, 1002)', async () => {
    const playerId = randomUUID();
    for (const headers of [mobile, client, auditor]) {
      const res = await issue({ playerId }, headers);
      expect([res.status, res.body.code]).toEqual([403, 4003]);
    }
    for (const [body, message] of [
      [undefined, 'Payload is null'],
      [{}, 'playerId: is required'],
      [{ playerId, ttlSeconds: 0 }, 'ttlSeconds: must be at least 1'],
      [{ playerId, ttlSeconds: 86_401 }, 'ttlSeconds: must be at most 86400 (a day)'],
      [{ playerId, ttlSeconds: 1.5 }, 'ttlSeconds: must be a whole number of seconds'],
      [{ playerId, ttlSeconds: '60' }, 'ttlSeconds: must be a whole number of seconds'],
    ] as const) {
      expect((await issue(body)).body).toEqual({ code: 1001, data: message });
    }
    expect((await issue({ playerId: 'someone' })).body).toEqual({
      code: 1002,
      data: 'Invalid player: playerId must be a UUID',
    });
  });
});

describe('a Client key with a player token', () => {
  it("reads that player's profile, streaks and missions, which a Client key alone may not (profile: 4003)", async () => {
    const playerId = await newPlayer();
    const token = await tokenOf(playerId);
    const alone = await profile(playerId, client);
    expect([alone.status, alone.body.code]).toEqual([403, 4003]);
    expect(alone.body.data).toContain('X-Player-Token');
    const res = await profile(playerId, withToken(token));
    expect([res.status, res.body.data.playerId]).toEqual([200, playerId]);
    for (const route of ['/v1/streaks/list', '/v1/missions/list'])
      expect((await t.http.post(route).set(withToken(token)).send({ playerId })).body.code).toBe(200);
  });

  it("reads no other player's views with it (4007), even those a Client key alone may read", async () => {
    const [mine, theirs] = [await newPlayer(), await newPlayer()];
    const token = await tokenOf(mine);
    for (const route of ['/v1/player/profile', '/v1/streaks/list', '/v1/missions/list']) {
      const res = await t.http.post(route).set(withToken(token)).send({ playerId: theirs });
      expect([res.status, res.body.code]).toEqual([403, 4007]);
    }
  });

  it('is refused a token this service did not issue (4005) and an expired one (4006)', async () => {
    const playerId = await newPlayer();
    const token = await tokenOf(playerId);
    const [payload, signature] = token.split('.');
    // Another player's id under the first token's signature: the signature no longer matches.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { p: string; e: number };
    const forged = `${Buffer.from(JSON.stringify({ ...claims, p: randomUUID() })).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${payload}.${signature.slice(1)}`, 'not-a-token', `${token}.more`]) {
      const res = await profile(playerId, withToken(bad));
      expect([res.status, res.body.code]).toEqual([401, 4005]);
    }
    const short = (await issue({ playerId, ttlSeconds: 60 })).body.data.token as string;
    clock += MINUTE;
    try {
      const res = await profile(playerId, withToken(short));
      expect([res.status, res.body.code]).toEqual([401, 4006]);
      expect(res.body.data).toMatch(/^Player token expired: ask the back end for a new one: it expired at /);
      expect((await profile(playerId, withToken(token))).body.code).toBe(200);
    } finally {
      clock -= MINUTE;
    }
  });

  it('is told which routes take the token: a preflight from its tenant allows X-Player-Token on the profile', async () => {
    const res = await t.http
      .options('/v1/player/profile')
      .set({ Origin: 'https://play.example.com', 'Access-Control-Request-Method': 'POST' });
    expect(res.headers['access-control-allow-origin']).toBe('https://play.example.com');
    expect(res.headers['access-control-allow-headers']).toContain('X-Player-Token');
  });

  it('changes nothing for other keys, which read every player: a Server key may send any token', async () => {
    const playerId = await newPlayer();
    expect((await profile(playerId, { ...server, 'X-Player-Token': 'not-a-token' })).body.code).toBe(200);
  });
});

describe('the secret tokens are signed with', () => {
  it("is kept with the players' keys without one in the keys file: a token outlives a restart", async () => {
    const own = await startTestService();
    let restarted: TestService | undefined;
    try {
      const playerId = await newPlayer(own);
      const token = await tokenOf(playerId, own);
      restarted = await own.restart();
      expect((await profile(playerId, withToken(token), restarted)).body.code).toBe(200);
    } finally {
      await (restarted ?? own).close();
    }
  });

  it("is the keys file's playerTokenSecret when given: processes on different data directories accept each other's tokens", async () => {
    const dir = tempDir();
    const keysFile = path.join(dir, 'keys-with-secret.yaml');
    fs.writeFileSync(
      keysFile,
      `${fs.readFileSync(writeKeysFile(dir), 'utf8')}\nplayerTokenSecret: "${'0123456789abcdef'.repeat(4)}"\n`,
    );
    const [a, b] = [
      await startTestService({ env: { API_KEYS_FILE: keysFile } }),
      await startTestService({ env: { API_KEYS_FILE: keysFile } }),
    ];
    try {
      const playerId = randomUUID();
      for (const s of [a, b])
        expect((await s.http.post('/v1/player/create').set(server).send({ playerId })).body.code).toBe(200);
      const token = await tokenOf(playerId, a);
      expect((await profile(playerId, withToken(token), b)).body.code).toBe(200);
      // Not the default service's secret, which its own key store keeps.
      expect((await profile(playerId, withToken(token))).body.code).toBe(4005);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('in the keys file is at least 32 characters', () => {
    const keys = `keys:\n  - { name: backend, tier: Server, key: "${KEYS.server}" }\n`;
    expect(parseKeysFile(`${keys}playerTokenSecret: short\n`, 'keys.yaml')).toEqual({
      ok: false,
      problems: ['playerTokenSecret: must be at least 32 characters (openssl rand -hex 32)'],
    });
  });
});
