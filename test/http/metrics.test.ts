/** GET /metrics: the Prometheus text format, for an operator's key. */
import { randomUUID } from 'node:crypto';
import { auditor, client, mobile, server, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  // One request a second with a burst of one for keys without their own limit (the Mobile key).
  t = await startTestService({
    catalogYaml: `
version: 1
settings: { rateLimit: { perSecond: 1, burst: 1 } }
actions: [{ identifier: play, points: 1 }]
`,
  });
});
afterAll(() => t.close());

/** The value of one sample of the text format, by its name and labels as written. */
const sample = (text: string, name: string): number | null => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : null;
};

describe('GET /metrics', () => {
  it('counts requests by route and status, appends, group commits, projection lag and rate-limit refusals, with process metrics', async () => {
    const playerId = randomUUID();
    for (let i = 0; i < 3; i++)
      expect(
        (
          await t.http
            .post('/v1/action/process')
            .set(server)
            .send({ name: 'play', referenceId: randomUUID(), playerId })
        ).body.code,
      ).toBe(200);
    const play = () =>
      t.http.post('/v1/action/process').set(mobile).send({ name: 'play', referenceId: randomUUID(), playerId });
    expect((await play()).body.code).toBe(200);
    expect((await play()).body.code).toBe(429);

    const res = await t.http.get('/metrics').set(auditor);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(
      sample(text, 'http_request_duration_seconds_count{method="POST",route="/v1/action/process",status="200"}'),
    ).toBe(4);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="POST",route="/v1/action/process",status="429"}'),
    ).toBe(1);
    expect(sample(text, 'rate_limit_refusals_total{key="app"}')).toBe(1);
    // The store's format, the catalog, and one append per processed action.
    expect(sample(text, 'event_store_append_duration_seconds_count')).toBe(6);
    expect(sample(text, 'event_store_group_commit_appends_sum')).toBe(6);
    // Sampled on the events some read model uses: the catalog and each action (its reference is not).
    expect(sample(text, 'projection_lag_seconds_count')).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it("gives the jobs queue's depth by state, as the scheduler has it at the scrape", async () => {
    // An activated powerup schedules its expiry: one delayed job more.
    const before = sample((await t.http.get('/metrics').set(server)).text, 'jobs{state="delayed"}')!;
    await t.service.deps.jobs.schedule('expire-powerup', `metrics-test-${randomUUID()}`, Date.now() + 3_600_000, {
      playerId: randomUUID(),
      powerupUid: 'none',
    });
    const text = (await t.http.get('/metrics').set(server)).text;
    expect(sample(text, 'jobs{state="delayed"}')).toBe(before + 1);
    for (const state of ['waiting', 'running', 'failed'])
      expect(sample(text, `jobs{state="${state}"}`)).toEqual(expect.any(Number));
  });

  it('needs a Server or Auditor key', async () => {
    expect((await t.http.get('/metrics')).status).toBe(401);
    expect((await t.http.get('/metrics').set(mobile)).body.code).toBe(4003);
    expect((await t.http.get('/metrics').set(client)).body.code).toBe(4003);
    expect((await t.http.get('/metrics').set({ Authorization: `Bearer ${server.AuthKey}` })).status).toBe(200);
  });
});
