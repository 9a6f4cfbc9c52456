import { randomUUID } from 'node:crypto';
import { CATALOG_MAX_BODY_BYTES } from '../../command-api/publish-catalog/routes';
import { eventually } from '../support/process';
import { auditor, client, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
actions:
  - { uid: act-login, identifier: login, points: 1 }
  - { uid: act-share, identifier: share, points: 5 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;
const DOUBLE = CATALOG.replace('identifier: login, points: 1', 'identifier: login, points: 2');
const TRIPLE = CATALOG.replace('identifier: login, points: 1', 'identifier: login, points: 3');
const WITHOUT_SHARE = CATALOG.replace('  - { uid: act-share, identifier: share, points: 5 }\n', '');
const HOUR = 3_600_000;

let t: TestService;
/** The service's clock: the real one, moved on by the tests that schedule. */
let offset = 0;
const now = () => Date.now() + offset;

beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now });
});
afterAll(() => t.close());

const versions = async () => (await t.http.get('/v1/admin/catalog/versions').set(auditor)).body.data;
const newest = async (): Promise<number> => (await versions())[0].version;
const publish = (body: object, headers: Record<string, string> = server) =>
  t.http.post('/v1/admin/catalog/publish').set(headers).send(body);
/** The points one login earns now, for a new player: the version in force decides it. */
async function loginPoints(): Promise<{ points: number; catalogVersion: number; publishedBy: string }> {
  const playerId = randomUUID();
  const referenceId = randomUUID();
  const res = await t.http.post('/v1/action/process').set(server).send({ playerId, name: 'login', referenceId });
  expect(res.body.code).toBe(200);
  const profile = await t.http.post('/v1/player/profile').set(server).send({ playerId });
  const trace = await t.http.get('/v1/audit/trace').query({ referenceId }).set(auditor);
  const [chain] = trace.body.data.chains;
  return {
    points: profile.body.data.points,
    catalogVersion: chain.catalogVersion,
    publishedBy: chain.catalogPublishedBy,
  };
}

describe('reading the catalog', () => {
  it('answers the version in force, published from the file, as JSON and as the file text', async () => {
    const res = await t.http.get('/v1/admin/catalog').set(auditor);
    expect(res.body.data).toMatchObject({
      version: 1,
      status: 'Active',
      source: 'file',
      publishedBy: 'file',
      comment: null,
      until: null,
      catalog: { actions: [{ uid: 'act-login', points: 1 }, { uid: 'act-share' }] },
    });
    expect(res.body.data.effectiveAt).toBe(res.body.data.publishedAt);
    const yaml = await t.http.get('/v1/admin/catalog').query({ format: 'yaml' }).set(server);
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    // The text is a catalog file: published again, it is the same content, so nothing is published.
    const again = await publish({ yaml: yaml.text, expectedVersion: await newest() });
    expect(again.body.code).toBe(200);
    expect(again.body.data.version).toBe(await newest());
  });

  it('lists versions newest first without their catalog, and answers one with it; 9041 for none', async () => {
    const list = await versions();
    expect(list.at(-1)).toEqual({
      version: 1,
      status: expect.any(String),
      source: 'file',
      publishedAt: expect.any(Number),
      publishedBy: 'file',
      comment: null,
      effectiveAt: expect.any(Number),
      until: null,
    });
    const one = await t.http.get('/v1/admin/catalog/versions/1').set(auditor);
    expect(one.body.data).toMatchObject({ version: 1, catalog: { actions: expect.any(Array) } });
    for (const missing of ['999', 'one'])
      expect((await t.http.get(`/v1/admin/catalog/versions/${missing}`).set(auditor)).body.code).toBe(9041);
  });

  it('is for Server and Auditor keys: 4003 for the others', async () => {
    for (const headers of [mobile, client])
      expect((await t.http.get('/v1/admin/catalog').set(headers)).body.code).toBe(4003);
  });
});

describe('POST /v1/admin/catalog/validate and diff', () => {
  it('validates as at start, every problem at once with its path, and writes nothing', async () => {
    const before = await newest();
    const bad = await t.http
      .post('/v1/admin/catalog/validate')
      .set(auditor)
      .send({ catalog: { version: 1, actions: [{ identifier: 'x', points: 'lots' }], levels: 'none' } });
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.problems.length).toBeGreaterThanOrEqual(2);
    expect(bad.body.data.problems.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(['actions[0].points', 'levels']),
    );
    const good = await t.http.post('/v1/admin/catalog/validate').set(auditor).send({ yaml: DOUBLE });
    expect(good.body.data).toEqual({ valid: true, problems: [] });
    const removes = await t.http.post('/v1/admin/catalog/validate').set(server).send({ yaml: WITHOUT_SHARE });
    expect(removes.body.data.valid).toBe(false);
    expect(removes.body.data.problems[0]).toMatchObject({
      path: 'actions',
      message: expect.stringContaining('act-share'),
    });
    expect(await newest()).toBe(before);
  });

  it('takes the catalog as `catalog` or `yaml`, one of them: 1001 otherwise', async () => {
    for (const body of [{}, { yaml: CATALOG, catalog: {} }])
      expect((await t.http.post('/v1/admin/catalog/validate').set(server).send(body)).body.code).toBe(1001);
    expect((await t.http.post('/v1/admin/catalog/validate').set(mobile).send({ yaml: CATALOG })).body.code).toBe(4003);
  });

  it('reads a catalog of up to 4 MiB, more than other routes take, and refuses a larger body with 413', async () => {
    const padded = (bytes: number) => `# ${'x'.repeat(bytes)}\n${CATALOG}`;
    const large = await t.http
      .post('/v1/admin/catalog/validate')
      .set(server)
      .send({ yaml: padded(1024 * 1024) });
    expect([large.status, large.body.data]).toEqual([200, { valid: true, problems: [] }]);
    const over = await t.http
      .post('/v1/admin/catalog/publish')
      .set(server)
      .send({ yaml: padded(CATALOG_MAX_BODY_BYTES), expectedVersion: 1 });
    expect([over.status, over.body.code]).toEqual([413, 1001]);
  });

  it('diffs against the version in force, by uid and field', async () => {
    const res = await t.http.post('/v1/admin/catalog/diff').set(auditor).send({ yaml: DOUBLE });
    expect(res.body.data.changes).toEqual([
      { section: 'actions', uid: 'act-login', change: 'changed', fields: ['points'] },
    ]);
    const against = await t.http.post('/v1/admin/catalog/diff').set(auditor).send({ yaml: DOUBLE, against: 999 });
    expect(against.body.code).toBe(9041);
  });
});

describe('POST /v1/admin/catalog/publish', () => {
  it('is for Server keys only: 4003 for an Auditor key', async () => {
    expect((await publish({ yaml: DOUBLE, expectedVersion: await newest() }, auditor)).body.code).toBe(4003);
  });

  it('refuses an invalid catalog with every problem, and publishes nothing', async () => {
    const before = await newest();
    const res = await publish({
      catalog: { version: 1, actions: [{ points: -1 }], levels: 'none' },
      expectedVersion: before,
    });
    expect(res.body.code).toBe(1001);
    expect(res.body.data).toMatch(/actions\[0\].*; .*levels/);
    expect(await newest()).toBe(before);
  });

  it('puts a version in force for the next request, whose events name it; the same content again publishes nothing', async () => {
    const expectedVersion = await newest();
    const key = randomUUID();
    const res = await publish({ yaml: DOUBLE, expectedVersion, comment: 'login is worth 2' }).set(
      'Idempotency-Key',
      key,
    );
    expect(res.body.data).toEqual({
      version: expectedVersion + 1,
      status: 'Active',
      effectiveAt: expect.any(Number),
      until: null,
    });
    expect(await loginPoints()).toEqual({ points: 2, catalogVersion: expectedVersion + 1, publishedBy: 'backend' });
    // The same request again, under its key: the answer recorded, nothing published twice.
    const replayed = await publish({ yaml: DOUBLE, expectedVersion, comment: 'login is worth 2' }).set(
      'Idempotency-Key',
      key,
    );
    expect(replayed.body.data).toEqual(res.body.data);
    const same = await publish({ yaml: DOUBLE, expectedVersion: expectedVersion + 1 });
    expect(same.body.data.version).toBe(expectedVersion + 1);
    expect(await newest()).toBe(expectedVersion + 1);
    expect((await versions())[0]).toMatchObject({ source: 'api', publishedBy: 'backend', comment: 'login is worth 2' });
    // The publication is on the record: in the event feed, under the version it published.
    const feed = await t.http.get('/v1/feed/events').query({ limit: 1000 }).set(auditor);
    expect(feed.body.data.events).toContainEqual(
      expect.objectContaining({
        type: 'CatalogPublished',
        metadata: expect.objectContaining({ catalogVersion: expectedVersion + 1 }),
      }),
    );
  });

  it('refuses a stale expectedVersion with 9040; of two publications at once exactly one wins', async () => {
    const expectedVersion = await newest();
    const stale = await publish({ yaml: TRIPLE, expectedVersion: expectedVersion - 1 });
    expect(stale.body.code).toBe(9040);
    // With an Idempotency-Key the refusal is recorded, and its retry answered the same way.
    const key = { ...server, 'Idempotency-Key': randomUUID() };
    const refused = await publish({ yaml: TRIPLE, expectedVersion: expectedVersion - 1 }, key);
    const retried = await publish({ yaml: TRIPLE, expectedVersion: expectedVersion - 1 }, key);
    expect([refused.status, refused.body.code, retried.body]).toEqual([400, 9040, refused.body]);
    const both = await Promise.all([
      publish({ yaml: TRIPLE, expectedVersion }),
      publish({ yaml: CATALOG, expectedVersion }),
    ]);
    expect(both.map((r) => r.body.code).sort()).toEqual([200, 9040]);
    expect(await newest()).toBe(expectedVersion + 1);
  });

  it('refuses to remove entries without confirmRemovals, as a restart does', async () => {
    const expectedVersion = await newest();
    expect((await publish({ yaml: WITHOUT_SHARE, expectedVersion })).body.code).toBe(1001);
    expect((await publish({ yaml: CATALOG, expectedVersion, until: now() - 1 })).body.code).toBe(1001);
  });

  it('schedules a live event: in force from effectiveAt until until, with no request at those moments, then the version before applies again', async () => {
    const before = await loginPoints();
    const expectedVersion = await newest();
    const effectiveAt = now() + HOUR;
    const res = await publish({
      yaml: TRIPLE.replace('points: 3', 'points: 10'),
      expectedVersion,
      effectiveAt,
      until: effectiveAt + HOUR,
    });
    expect(res.body.data).toEqual({
      version: expectedVersion + 1,
      status: 'Scheduled',
      effectiveAt,
      until: effectiveAt + HOUR,
    });
    expect(await loginPoints()).toEqual(before);
    offset += HOUR;
    expect(await loginPoints()).toMatchObject({ points: 10, catalogVersion: expectedVersion + 1 });
    expect((await versions())[0].status).toBe('Active');
    offset += HOUR;
    expect(await loginPoints()).toEqual(before);
    expect((await versions())[0].status).toBe('Ended');
  });
});

describe('POST /v1/admin/catalog/revert', () => {
  it("publishes an earlier version's content again; 9041 for a version that does not exist", async () => {
    const expectedVersion = await newest();
    const revert = (body: object, headers: Record<string, string> = server) =>
      t.http.post('/v1/admin/catalog/revert').set(headers).send(body);
    expect((await revert({ version: 999, expectedVersion })).body.code).toBe(9041);
    expect((await revert({ version: 1, expectedVersion }, auditor)).body.code).toBe(4003);
    const res = await revert({ version: 1, expectedVersion, comment: 'back to the file' });
    expect(res.body.data).toMatchObject({ version: expectedVersion + 1, status: 'Active' });
    expect(await loginPoints()).toMatchObject({ points: 1, catalogVersion: expectedVersion + 1 });
    expect((await versions())[0]).toMatchObject({ source: 'api', comment: 'back to the file' });
  });
});

describe('a restart', () => {
  it('with the file unchanged keeps the version published through the API; a scheduled one found in force after being down across its start; an edited file is published', async () => {
    let expectedVersion = await newest();
    expect((await publish({ yaml: DOUBLE, expectedVersion })).body.code).toBe(200);
    const effectiveAt = now() + HOUR;
    expect((await publish({ yaml: TRIPLE, expectedVersion: expectedVersion + 1, effectiveAt })).body.code).toBe(200);
    expectedVersion += 2;
    t = await t.restart();
    expect(await newest()).toBe(expectedVersion);
    expect(await loginPoints()).toMatchObject({ points: 2, catalogVersion: expectedVersion - 1 });
    // Down across effectiveAt: it is in force when the service starts again.
    offset += 2 * HOUR;
    t = await t.restart();
    expect(await loginPoints()).toMatchObject({ points: 3, catalogVersion: expectedVersion });
    t = await t.restart({ catalogYaml: CATALOG.replace('points: 5', 'points: 6') });
    expect(await newest()).toBe(expectedVersion + 1);
    expect((await versions())[0]).toMatchObject({ source: 'file', status: 'Active' });
  });
});

describe('a live event on the record', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ catalogYaml: CATALOG });
  });
  afterAll(() => live.close());

  it('its start and end are events of the catalog stream, and the read models follow them: its leaderboard exists only while it runs', async () => {
    const board = () => live.http.get('/v1/admin/leaderboards/lb-weekend').set(server);
    const effectiveAt = Date.now() + 1500;
    const res = await live.http
      .post('/v1/admin/catalog/publish')
      .set(server)
      .send({
        yaml: `${CATALOG}  - { uid: lb-weekend, label: Weekend, type: 0 }\n`,
        expectedVersion: 1,
        comment: 'weekend board',
        effectiveAt,
        until: effectiveAt + 1500,
      });
    expect(res.body.data.status).toBe('Scheduled');
    expect((await board()).body.code).toBe(9007);
    await eventually(async () => expect((await board()).body.code).toBe(200), 30_000);
    await eventually(async () => expect((await board()).body.code).toBe(9007), 30_000);
    const feed = await live.http.get('/v1/feed/events').query({ limit: 1000 }).set(auditor);
    const onCatalog = feed.body.data.events
      .filter((e: { stream: string }) => e.stream === 'catalog')
      .map((e: { type: string; data: { version: number } }) => [e.type, e.data.version]);
    expect(onCatalog).toEqual([
      ['CatalogPublished', 1],
      ['CatalogPublished', 2],
      ['CatalogVersionInForce', 2],
      ['CatalogVersionInForce', 1],
    ]);
    // Versions are counted by publication, not by the catalog stream's events.
    const next = await live.http
      .post('/v1/admin/catalog/publish')
      .set(server)
      .send({ yaml: DOUBLE, expectedVersion: 2 });
    expect(next.body.data).toMatchObject({ version: 3, status: 'Active' });
    const listed = await live.http.get('/v1/admin/catalog/versions').set(auditor);
    expect(listed.body.data.map((v: { version: number; status: string }) => [v.version, v.status])).toEqual([
      [3, 'Active'],
      [2, 'Ended'],
      [1, 'Superseded'],
    ]);
  }, 90_000);
});
