import { createHash } from 'node:crypto';
import { CATALOG_STREAM } from '../../domain/streams';
import { deciderSpec } from '../../test/support/decider-spec';
import { catalogOf, T0, testEnv } from '../../test/support/player-spec';
import { filePublication, revertPublication, versionPublication, type PublishVersionCommand } from './publish';
import { versionInForce } from './in-force-job';

const publishingFile = deciderSpec(filePublication);
const publishing = deciderSpec(versionPublication);
const reverting = deciderSpec(revertPublication);

const first = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: login, points: 1 }]
`);
const second = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: login, points: 2 }]
`);
const third = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: login, points: 2 }, { uid: act-share, identifier: share, points: 5 }]
`);
const hashOf = (catalog: unknown) => createHash('sha256').update(JSON.stringify(catalog)).digest('hex');
const HOUR = 3_600_000;

/** A version as recorded before publication through the API existed: the file's. */
const published = (version: number, catalog: typeof first) => ({
  type: 'CatalogPublished' as const,
  data: { version, hash: hashOf(catalog), publishedAt: T0 - 1000, catalog },
});
const publishedByApi = (version: number, catalog: typeof first, fields: Record<string, unknown> = {}) => ({
  type: 'CatalogPublished' as const,
  data: {
    version,
    hash: hashOf(catalog),
    publishedAt: T0 - 500,
    catalog,
    source: 'api',
    publishedBy: 'admin',
    comment: null,
    effectiveAt: T0 - 500,
    until: null,
    ...fields,
  },
});
const env = (now = T0) => ({ ...testEnv(now), catalog: first });
const publication = (catalog: typeof first, fields: Partial<PublishVersionCommand> = {}): PublishVersionCommand => ({
  catalog,
  hash: hashOf(catalog),
  expectedVersion: 1,
  comment: null,
  effectiveAt: null,
  until: null,
  confirmRemovals: false,
  publishedBy: 'admin',
  revertOf: null,
  ...fields,
});

describe('publishing the catalog file at start', () => {
  const fromFile = (version: number, catalog: typeof first) => ({
    type: 'CatalogPublished' as const,
    data: {
      version,
      hash: hashOf(catalog),
      publishedAt: T0,
      catalog,
      source: 'file',
      publishedBy: 'file',
      comment: null,
      effectiveAt: T0,
      until: null,
    },
  });

  it('publishes the first catalog as version 1', () => {
    const decided = publishingFile.given().when({ catalog: first, hash: hashOf(first) }, env());
    decided.thenWrites({ [CATALOG_STREAM]: [fromFile(1, first)] });
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({ version: 1, catalog: first, published: true });
  });

  it('publishes a changed file as the next version', () => {
    publishingFile
      .given({ [CATALOG_STREAM]: [published(1, first)] })
      .when({ catalog: second, hash: hashOf(second) }, env())
      .thenWrites({ [CATALOG_STREAM]: [fromFile(2, second)] });
  });

  it('publishes nothing for an unchanged file, and answers the version in force', () => {
    const decided = publishingFile
      .given({ [CATALOG_STREAM]: [published(1, first), published(2, second), published(3, first)] })
      .when({ catalog: first, hash: hashOf(first) }, env());
    decided.thenWrites({});
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({
      version: 3,
      catalog: first,
      published: false,
    });
  });

  it('given a version published through the API since, when the file is unchanged, then the API version stays in force', () => {
    const decided = publishingFile
      .given({ [CATALOG_STREAM]: [published(1, first), publishedByApi(2, second)] })
      .when({ catalog: first, hash: hashOf(first) }, env());
    decided.thenWrites({});
    expect(decided.decided.ok && decided.decided.value.answer).toMatchObject({ version: 2, published: false });
  });

  it('given a version published through the API since, when the file was edited, then the file is published over it', () => {
    publishingFile
      .given({ [CATALOG_STREAM]: [published(1, first), publishedByApi(2, second)] })
      .when({ catalog: third, hash: hashOf(third) }, env())
      .thenWrites({ [CATALOG_STREAM]: [fromFile(3, third)] });
  });
});

describe('publishing a version through the API', () => {
  const given = publishing.given({ [CATALOG_STREAM]: [published(1, first)] });

  it('publishes the next version in force at once, naming the key and the comment', () => {
    const decided = given.when(publication(second, { comment: 'login is worth 2' }), env());
    decided.thenWrites({
      [CATALOG_STREAM]: [publishedByApi(2, second, { publishedAt: T0, effectiveAt: T0, comment: 'login is worth 2' })],
    });
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({
      version: 2,
      status: 'Active',
      effectiveAt: T0,
      until: null,
      published: true,
    });
  });

  it('schedules a live event: Scheduled until its effectiveAt, ended at its until', () => {
    const decided = given.when(publication(second, { effectiveAt: T0 + HOUR, until: T0 + 2 * HOUR }), env());
    decided.thenWrites({
      [CATALOG_STREAM]: [publishedByApi(2, second, { publishedAt: T0, effectiveAt: T0 + HOUR, until: T0 + 2 * HOUR })],
    });
    expect(decided.decided.ok && decided.decided.value.answer).toMatchObject({ status: 'Scheduled' });
  });

  it('puts a version with an effectiveAt in the past in force at once', () => {
    given
      .when(publication(second, { effectiveAt: T0 - HOUR }), env())
      .thenWrites({ [CATALOG_STREAM]: [publishedByApi(2, second, { publishedAt: T0, effectiveAt: T0 })] });
  });

  it('refuses an until not after the effectiveAt', () => {
    given.when(publication(second, { effectiveAt: T0 + HOUR, until: T0 + HOUR }), env()).thenFails(1001);
    given.when(publication(second, { until: T0 }), env()).thenFails(1001);
  });

  it('refuses a stale expectedVersion: another version was published since', () => {
    publishing
      .given({ [CATALOG_STREAM]: [published(1, first), publishedByApi(2, second)] })
      .when(publication(third, { expectedVersion: 1 }), env())
      .thenFails(9040, 'Catalog changed since the version expected: version 1; the newest is version 2');
  });

  it('publishes nothing for the content in force, and answers that version', () => {
    const decided = given.when(publication(first), env());
    decided.thenWrites({});
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({
      version: 1,
      status: 'Active',
      effectiveAt: T0 - 1000,
      until: null,
      published: false,
    });
  });

  it('refuses to remove entries of the version in force without confirmRemovals, as a restart does', () => {
    const from = publishing.given({ [CATALOG_STREAM]: [published(1, third)] });
    from
      .when(publication(second), env())
      .thenFails(
        1001,
        'actions: removes act-share of catalog version 1; put them back, or publish with confirmRemovals: true (docs/catalog.md, "Changing the catalog")',
      );
    from
      .when(publication(second, { confirmRemovals: true }), env())
      .thenWrites({ [CATALOG_STREAM]: [publishedByApi(2, second, { publishedAt: T0, effectiveAt: T0 })] });
  });
});

describe('reverting to a version', () => {
  const given = reverting.given({ [CATALOG_STREAM]: [published(1, first), publishedByApi(2, second)] });

  it("publishes the version's content again as the next version, naming what it reverts", () => {
    given.when({ version: 1, expectedVersion: 2, comment: 'back', publishedBy: 'admin' }, env()).thenWrites({
      [CATALOG_STREAM]: [publishedByApi(3, first, { publishedAt: T0, effectiveAt: T0, comment: 'back', revertOf: 1 })],
    });
  });

  it('refuses a version that does not exist', () => {
    given.when({ version: 7, expectedVersion: 2, comment: null, publishedBy: 'admin' }, env()).thenFails(9041);
  });

  it('refuses a stale expectedVersion', () => {
    given.when({ version: 1, expectedVersion: 1, comment: null, publishedBy: 'admin' }, env()).thenFails(9040);
  });
});

describe('the start and end of a scheduled version, on the record', () => {
  const recording = deciderSpec(versionInForce);
  const liveEvent = publishedByApi(2, second, { effectiveAt: T0 + HOUR, until: T0 + 2 * HOUR });
  const inForce = (version: number, catalog: typeof first, since: number) => ({
    type: 'CatalogVersionInForce' as const,
    data: { version, hash: hashOf(catalog), since, catalog },
  });

  it('given a scheduled version, when its start comes, then it is recorded in force', () => {
    recording
      .given({ [CATALOG_STREAM]: [published(1, first), liveEvent] })
      .when({}, env(T0 + HOUR))
      .thenWrites({ [CATALOG_STREAM]: [inForce(2, second, T0 + HOUR)] });
  });

  it('given a live event in force, when its end comes, then the version before it is recorded in force again', () => {
    recording
      .given({ [CATALOG_STREAM]: [published(1, first), liveEvent, inForce(2, second, T0 + HOUR)] })
      .when({}, env(T0 + 2 * HOUR))
      .thenWrites({ [CATALOG_STREAM]: [inForce(1, first, T0 + 2 * HOUR)] });
  });

  it('records nothing when the version in force is the one last recorded (a job run twice, or run late past both moments)', () => {
    recording
      .given({ [CATALOG_STREAM]: [published(1, first), liveEvent] })
      .when({}, env(T0 + 3 * HOUR))
      .thenWrites({});
    recording
      .given({ [CATALOG_STREAM]: [published(1, first), liveEvent, inForce(2, second, T0 + HOUR)] })
      .when({}, env(T0 + HOUR + 1))
      .thenWrites({});
  });

  it('a publication schedules the jobs of its start and end', () => {
    const decided = publishing
      .given({ [CATALOG_STREAM]: [published(1, first)] })
      .when(publication(second, { effectiveAt: T0 + HOUR, until: T0 + 2 * HOUR }), env());
    expect(decided.decided.ok && decided.decided.value.jobs.map((j) => [j.id, j.runAt])).toEqual([
      ['catalog-v2-start', T0 + HOUR],
      ['catalog-v2-end', T0 + 2 * HOUR],
    ]);
  });
});
