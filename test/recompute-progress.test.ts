/**
 * A recompute's status and the refusal of a second one, as two command processes see them: the
 * one running it, and another sharing the log and the read store (MongoDB in the split
 * deployment). Each process here is its own set of routes, with its own RecomputeProgress, over
 * one log and one shared collection.
 */
import pino from 'pino';
import request from 'supertest';
import { HEARTBEAT_MS, RECOMPUTE_PROGRESS, RecomputeProgress, STALE_MS } from '../command-api/recompute/progress';
import { recomputeRoutes } from '../command-api/recompute/route';
import type { ApiKey } from '../shared/adapters/auth/keys';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { createHttpApp } from '../shared/adapters/http/app';
import { ServiceMetrics } from '../shared/adapters/metrics';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { catalogOfYaml, commandDepsFor, publishYaml } from './support/command-deps';
import { eventually } from './support/process';

const CATALOG = `
version: 1
actions:
  - { uid: act-earn, identifier: earn, points: 10 }
`;

const KEY: ApiKey = {
  name: 'backend',
  tier: 'Server',
  digest: Buffer.alloc(32),
  tenantDomains: [],
  rateLimit: null,
  maxMultiplier: 1,
  maxTimestampAgeSeconds: null,
};

/** A command process's recompute routes, over the shared log and store; `projected`: what its wait for the read models waits on. */
function commandProcess(
  events: SqliteEventStore,
  shared: ReadStore,
  projected: Promise<unknown>,
  clock: () => number = Date.now,
) {
  const deps = commandDepsFor(events, catalogOfYaml(CATALOG), Date.now);
  const routes = recomputeRoutes({
    ...deps,
    waitForProjected: () => projected,
    progress: new RecomputeProgress(shared.collection(RECOMPUTE_PROGRESS), () => undefined, clock),
  });
  const app = createHttpApp(routes, {
    metrics: new ServiceMetrics(),
    log: pino({ level: 'silent' }),
    clientDomains: new Set(),
    isStarted: () => true,
    workProblem: () => null,
    documentation: { document: {} },
    elsewhere: [],
    trustProxy: false,
    authorize: () => ({ ok: true, key: KEY }),
    rateLimit: async () => null,
    afterWrite: async () => undefined,
    waitForPosition: async () => true,
  });
  return { http: request(app), jobs: deps.jobs };
}

describe('a recompute seen from another command process', () => {
  const opened: { jobs: { close(): Promise<void> } }[] = [];
  afterAll(async () => {
    for (const p of opened) await p.jobs.close();
  });

  async function setUp(clock?: () => number) {
    const events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, Date.now(), { correlationId: 'c', causationId: 'c', keyName: 'test' });
    const shared = new MemoryReadStore();
    let release = () => {};
    // The running recompute waits here, after its work, until the test lets it end.
    const projected = new Promise<void>((resolve) => (release = resolve));
    const running = commandProcess(events, shared, projected);
    const other = commandProcess(events, shared, Promise.resolve(), clock);
    opened.push(running, other);
    return { running, other, release };
  }

  it('reads Running on the other process too, which refuses a second one; Completed on both once it ends', async () => {
    const { running, other, release } = await setUp();
    const started = await running.http.post('/v1/admin/recompute').send({});
    expect(started.body).toMatchObject({ code: 200, data: { status: 'Running' } });
    const uid = started.body.data.recomputeUid as string;

    const status = await other.http.get(`/v1/admin/recompute/${uid}`);
    expect(status.body).toMatchObject({ code: 200, data: { recomputeUid: uid, status: 'Running' } });
    const second = await other.http.post('/v1/admin/recompute').send({});
    expect(second.body).toMatchObject({ code: 9030 });
    expect(second.body.data).toContain(uid);

    release();
    for (const p of [running, other])
      await eventually(async () =>
        expect((await p.http.get(`/v1/admin/recompute/${uid}`)).body.data).toMatchObject({ status: 'Completed' }),
      );
  });

  it('reads Interrupted on the other process once the running one has not been heard of for STALE_MS', async () => {
    let later = 0;
    const { running, other, release } = await setUp(() => Date.now() + later);
    const uid = (await running.http.post('/v1/admin/recompute').send({})).body.data.recomputeUid as string;
    expect((await other.http.get(`/v1/admin/recompute/${uid}`)).body.data.status).toBe('Running');
    // As if its process had stopped: no heartbeat for longer than STALE_MS.
    later = STALE_MS + HEARTBEAT_MS;
    expect((await other.http.get(`/v1/admin/recompute/${uid}`)).body.data).toMatchObject({
      status: 'Failed',
      message: expect.stringContaining('Interrupted'),
    });
    expect((await other.http.post('/v1/admin/recompute').send({})).body).toMatchObject({
      code: 200,
      data: { status: 'Running' },
    });
    release();
  });
});
