import { catalogOf } from '../../test/support/player-spec';
import {
  evolveCatalogVersions,
  lastFromFile,
  noCatalogVersions,
  statusAt,
  versionInForceAt,
  versionNumbered,
  type CatalogVersions,
} from './versions';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: login, points: 1 }]
`);
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

type Publication = { version: number; publishedAt?: number } & Record<string, unknown>;
const published = ({ version, publishedAt = T0, ...fields }: Publication) => ({
  type: 'CatalogPublished',
  data: { version, hash: `h${version}`, publishedAt, catalog, ...fields },
});

/** Given the catalog stream's events, folded as every process folds them. */
const given = (...events: ReturnType<typeof published>[]): CatalogVersions =>
  events.reduce(evolveCatalogVersions, noCatalogVersions);

const inForce = (state: CatalogVersions, t: number) => versionInForceAt(state, t)?.version ?? null;

describe('the catalog versions fold', () => {
  it('given a publication recorded before scheduling existed, then it reads as the file in force from then on, for good', () => {
    const state = given(published({ version: 1, publishedAt: T0 }));
    expect(state.versions).toEqual([
      {
        version: 1,
        source: 'file',
        publishedAt: T0,
        publishedBy: 'file',
        comment: null,
        effectiveAt: T0,
        until: null,
        hash: 'h1',
        revertOf: null,
        catalog,
      },
    ]);
    expect(inForce(state, T0 + 1000 * HOUR)).toBe(1);
  });

  it('given an API publication, then it keeps its author, comment and schedule', () => {
    const state = given(
      published({ version: 1 }),
      published({
        version: 2,
        publishedAt: T0 + HOUR,
        source: 'api',
        publishedBy: 'console',
        comment: 'double points',
        effectiveAt: T0 + 2 * HOUR,
        until: T0 + 3 * HOUR,
      }),
    );
    expect(versionNumbered(state, 2)).toMatchObject({
      source: 'api',
      publishedBy: 'console',
      comment: 'double points',
      effectiveAt: T0 + 2 * HOUR,
      until: T0 + 3 * HOUR,
    });
    expect(versionNumbered(state, 3)).toBeNull();
    expect(versionNumbered(state, 0)).toBeNull();
  });

  it('never changes the state it folds from', () => {
    const before = given(published({ version: 1 }));
    const frozen = structuredClone(before);
    const after = evolveCatalogVersions(before, published({ version: 2 }));
    expect(before).toEqual(frozen);
    expect(after.versions).toHaveLength(2);
  });

  it('ignores other events of the stream', () => {
    const state = given(published({ version: 1 }));
    expect(evolveCatalogVersions(state, { type: 'SomethingElse', data: {} })).toBe(state);
  });

  it('finds the last version published from the file, past the API ones', () => {
    const state = given(
      published({ version: 1 }),
      published({ version: 2, source: 'file' }),
      published({ version: 3, source: 'api', publishedBy: 'k' }),
    );
    expect(lastFromFile(state)?.version).toBe(2);
    expect(lastFromFile(noCatalogVersions)).toBeNull();
  });
});

describe('the version in force at a moment', () => {
  it('given no version, then none is in force', () => {
    expect(inForce(noCatalogVersions, T0)).toBeNull();
  });

  it('given versions in force at once, then the newest is in force and the others superseded', () => {
    const state = given(published({ version: 1 }), published({ version: 2, publishedAt: T0 + HOUR }));
    expect(inForce(state, T0 + HOUR)).toBe(2);
    expect(inForce(state, T0 + HOUR - 1)).toBe(1);
    expect(statusAt(state, state.versions[0], T0 + HOUR)).toBe('Superseded');
    expect(statusAt(state, state.versions[1], T0 + HOUR)).toBe('Active');
  });

  it('given a scheduled live event, then it is Scheduled before, Active from its start, Ended at its end, and the version before it applies again', () => {
    const state = given(
      published({ version: 1 }),
      published({ version: 2, publishedAt: T0 + HOUR, effectiveAt: T0 + 10 * HOUR, until: T0 + 20 * HOUR }),
    );
    const event = state.versions[1];
    expect([inForce(state, T0 + 10 * HOUR - 1), statusAt(state, event, T0 + 10 * HOUR - 1)]).toEqual([1, 'Scheduled']);
    expect([inForce(state, T0 + 10 * HOUR), statusAt(state, event, T0 + 10 * HOUR)]).toEqual([2, 'Active']);
    expect([inForce(state, T0 + 20 * HOUR - 1), statusAt(state, event, T0 + 20 * HOUR - 1)]).toEqual([2, 'Active']);
    expect([inForce(state, T0 + 20 * HOUR), statusAt(state, event, T0 + 20 * HOUR)]).toEqual([1, 'Ended']);
  });

  it('given a version published while a scheduled one is pending, then the scheduled one still wins from its start', () => {
    const state = given(
      published({ version: 1 }),
      published({ version: 2, publishedAt: T0 + HOUR, effectiveAt: T0 + 10 * HOUR }),
      published({ version: 3, publishedAt: T0 + 2 * HOUR }),
    );
    expect(inForce(state, T0 + 2 * HOUR)).toBe(3);
    expect(inForce(state, T0 + 10 * HOUR)).toBe(2);
    expect(statusAt(state, state.versions[2], T0 + 10 * HOUR)).toBe('Superseded');
  });

  it('given two versions with the same effectiveAt, then the higher version is in force', () => {
    const state = given(
      published({ version: 1 }),
      published({ version: 2, effectiveAt: T0 + HOUR }),
      published({ version: 3, effectiveAt: T0 + HOUR }),
    );
    expect(inForce(state, T0 + HOUR)).toBe(3);
  });

  it('given a version whose until has passed before it was ever in force, then it is Ended', () => {
    const state = given(published({ version: 1 }), published({ version: 2, effectiveAt: T0, until: T0 + HOUR }));
    expect(statusAt(state, state.versions[1], T0 + 2 * HOUR)).toBe('Ended');
    expect(inForce(state, T0 + 2 * HOUR)).toBe(1);
  });
});
