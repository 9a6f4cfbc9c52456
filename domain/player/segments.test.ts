/** Segments (docs/catalog.md, "Segments"): given a player's state, when a segment is read, then whether they are in it. */
import type { Catalog, Segment } from '../catalog/types';
import { appliesTo, isInSegment, levelNumberOf, type SegmentSubject } from './segments';
import { initialPlayerState, type Holding } from './state';

const regulars: Segment = {
  uid: 'seg-dach-regulars',
  label: 'Regulars in Germany and Austria',
  conditions: [
    { attribute: 'country', in: ['DE', 'AT'] },
    { level: { min: 2, max: null } },
    { badge: 'badge-regular' },
    { points: { min: 100, max: null } },
  ],
};

const player = (overrides: Partial<SegmentSubject> = {}): SegmentSubject => ({
  ...initialPlayerState('p1'),
  ...overrides,
});
const holding = { uid: 'badge-regular' } as unknown as Holding;
const regular = player({
  attributes: { country: 'AT' },
  levelsReached: new Map([
    ['l1', 1],
    ['l2', 2],
  ]),
  holdingsByUid: new Map([['badge-regular', [holding]]]),
  points: 100,
});

describe('a segment', () => {
  it('holds a player who meets every condition', () => {
    expect(isInSegment(regulars, regular)).toBe(true);
  });

  it.each<[string, Partial<SegmentSubject>]>([
    ['an attribute outside the list', { attributes: { country: 'FR' } }],
    ['no such attribute', { attributes: {} }],
    ['a level below the min', { levelsReached: new Map([['l1', 1]]) }],
    ['no badge', { holdingsByUid: new Map() }],
    ['points below the min', { points: 99.5 }],
  ])('leaves out a player with %s', (_, change) => {
    expect(isInSegment(regulars, { ...regular, ...change })).toBe(false);
  });

  it('reads max bounds inclusively, and a player with no level as level 0', () => {
    const newcomers: Segment = {
      uid: 'seg-new',
      label: 'Newcomers',
      conditions: [{ level: { min: null, max: 1 } }, { points: { min: null, max: 50 } }],
    };
    expect(levelNumberOf(player())).toBe(0);
    expect(isInSegment(newcomers, player({ points: 50, levelsReached: new Map([['l1', 1]]) }))).toBe(true);
    expect(isInSegment(newcomers, player({ points: 50.5 }))).toBe(false);
    expect(isInSegment(newcomers, regular)).toBe(false);
  });
});

describe('an entry naming a segment', () => {
  const catalog = { segments: [regulars] } as unknown as Catalog;

  it('applies to the players in it only; an entry naming none applies to everyone', () => {
    expect(appliesTo(catalog, 'seg-dach-regulars', regular)).toBe(true);
    expect(appliesTo(catalog, 'seg-dach-regulars', player())).toBe(false);
    expect(appliesTo(catalog, null, player())).toBe(true);
  });

  it('of a catalog version published before segments existed (no segment field, no section) applies to everyone', () => {
    const before = {} as unknown as Catalog;
    expect(appliesTo(before, undefined as unknown as null, player())).toBe(true);
  });
});
