import { createHash } from 'node:crypto';
import { CATALOG_STREAM } from '../../shared/domain/streams';
import { deciderSpec, recordedOf } from '../../test/support/decider-spec';
import { catalogOf, T0, testEnv } from '../../test/support/player-spec';
import { decidePublication, publicationStateOf } from './publish';

/** A publication as its handler decides it: on the catalog stream's last event. */
const publishing = deciderSpec(decidePublication, (given) => publicationStateOf(recordedOf(given, CATALOG_STREAM)));

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
const hashOf = (catalog: unknown) => createHash('sha256').update(JSON.stringify(catalog)).digest('hex');
const published = (version: number, catalog: typeof first) => ({
  type: 'CatalogPublished',
  data: { version, hash: hashOf(catalog), publishedAt: T0 - 1000, catalog },
});

describe('publishing the catalog', () => {
  it('publishes the first catalog as version 1', () => {
    const env = { ...testEnv(T0), catalog: first };
    const decided = publishing.given().when({ catalog: first, hash: hashOf(first) }, env);
    decided.thenWrites({
      [CATALOG_STREAM]: [
        { type: 'CatalogPublished', data: { version: 1, hash: hashOf(first), publishedAt: T0, catalog: first } },
      ],
    });
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({ version: 1, catalog: first, published: true });
  });

  it('publishes a changed catalog as the next version', () => {
    const env = { ...testEnv(T0), catalog: second };
    publishing
      .given({ [CATALOG_STREAM]: [published(1, first)] })
      .when({ catalog: second, hash: hashOf(second) }, env)
      .thenWrites({
        [CATALOG_STREAM]: [
          { type: 'CatalogPublished', data: { version: 2, hash: hashOf(second), publishedAt: T0, catalog: second } },
        ],
      });
  });

  it('publishes nothing for an unchanged catalog, and answers the version in force', () => {
    const env = { ...testEnv(T0), catalog: first };
    const decided = publishing
      .given({ [CATALOG_STREAM]: [published(1, first), published(2, second), published(3, first)] })
      .when({ catalog: first, hash: hashOf(first) }, env);
    decided.thenWrites({});
    expect(decided.decided.ok && decided.decided.value.answer).toEqual({
      version: 3,
      catalog: first,
      published: false,
    });
  });
});
