import { catalogOf } from '../../test/support/player-spec';
import { catalogChanges } from './diff';

const before = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions:
    - { uid: act-login, identifier: login, points: 1 }
    - { uid: act-share, identifier: share, points: 5 }
`);

describe('what publishing a catalog would change', () => {
  it('given no version yet, then every entry is added', () => {
    expect(catalogChanges(null, before)).toEqual([
      { section: 'actions', uid: 'act-login', change: 'added', fields: [] },
      { section: 'actions', uid: 'act-share', change: 'added', fields: [] },
    ]);
  });

  it('names entries added, removed and changed (with their changed fields), and changed settings', () => {
    const after = catalogOf(`
      version: 1
      settings: { timezone: Europe/Paris }
      actions:
        - { uid: act-login, identifier: login, points: 2, isActive: false }
        - { uid: act-review, identifier: review, points: 3 }
    `);
    expect(catalogChanges(before, after)).toEqual([
      { section: 'settings', uid: 'settings', change: 'changed', fields: ['timezone'] },
      { section: 'actions', uid: 'act-review', change: 'added', fields: [] },
      { section: 'actions', uid: 'act-share', change: 'removed', fields: [] },
      { section: 'actions', uid: 'act-login', change: 'changed', fields: ['isActive', 'points'] },
    ]);
  });

  it('given the same content, then nothing changes', () => {
    expect(catalogChanges(before, before)).toEqual([]);
  });
});
