import { randomUUID } from 'node:crypto';
import { mobile, server, startTestService } from '../support/service';

describe('rate limit on action submission', () => {
  it('answers 429 with Retry-After past the burst, per key; a key with perSecond 0 is unlimited', async () => {
    // One token per 100 s: a loaded machine's slow requests refill nothing within the test.
    const t = await startTestService({
      catalogYaml: `version: 1
settings: { rateLimit: { perSecond: 0.01, burst: 2 } }
actions: [{ uid: act-a, identifier: a, points: 1 }]
`,
    });
    try {
      const send = (headers: Record<string, string>) =>
        t.http
          .post('/v1/action/process')
          .set(headers)
          .send({ name: 'a', referenceId: randomUUID(), playerId: randomUUID() });
      expect((await send(mobile)).body.code).toBe(200);
      expect((await send(mobile)).body.code).toBe(200);
      const limited = await send(mobile);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < 5; i++) expect((await send(server)).body.code).toBe(200);
    } finally {
      await t.close();
    }
  });
});
