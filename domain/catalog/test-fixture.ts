/**
 * Test support (imported by the *.test.ts files only): a small catalog that uses every part of
 * the format and is valid, and a helper that breaks a copy of it and returns the problem lines.
 */
import { parseCatalog } from './load';

// Loosely typed on purpose: tests write invalid values into it.
export type RawCatalog = Record<string, any>;

export function validCatalog(): RawCatalog {
  return {
    version: 1,
    settings: { timezone: 'Europe/Berlin' },
    deliverables: [
      { uid: 'gold', label: 'Gold', type: 'Prize', kind: 'Currency' },
      { uid: 'banner', label: 'Banner', type: 'Content' },
      {
        uid: 'chest',
        label: 'Chest',
        type: 'Prize',
        kind: 'Chest',
        chest: {
          drawCount: { min: 1, max: 2 },
          pool: [
            { reward: 'gold', amount: { min: 1, max: 5 }, weight: 3 },
            { reward: 'points', amount: { min: 10, max: 10 }, weight: 1, stock: 20 },
          ],
        },
      },
      {
        uid: 'boost',
        label: 'Boost',
        type: 'Prize',
        kind: 'Powerup',
        powerup: { multiplier: 2, timeoutSeconds: 60, targetPrizes: ['gold'] },
      },
    ],
    actions: [
      {
        uid: 'act-buy',
        identifier: 'buy',
        points: 10,
        actionObjects: [
          { label: 'amount', type: 'Number' },
          { label: 'category', type: 'String' },
        ],
        deliverables: [{ deliverable: 'gold', amount: 1 }],
      },
      { uid: 'act-spin', identifier: 'spin', cost: 5, costDeliverable: 'gold' },
    ],
    badges: [
      { uid: 'b-first', label: 'First', type: 'OneTimeOnly', conditions: [{ action: 'buy' }] },
      {
        uid: 'b-big',
        label: 'Big spender',
        type: 'Repeatable',
        requiredBadge: 'b-first',
        startDate: '2026-01-01T00:00:00',
        endDate: '2027-01-01T00:00:00',
        conditions: [
          {
            action: 'buy',
            filters: [{ name: 'category', op: 'eq', value: 'books' }],
            challenge: {
              times: 2,
              sum: { field: 'amount', atLeast: 100 },
              withinDays: 7,
              between: { start: '2026-01-01T00:00:00', end: '2026-02-01T00:00:00' },
            },
          },
        ],
        deliverables: [{ deliverable: 'banner', amount: 1 }],
      },
      { uid: 'b-ranked', label: 'Regular', type: 'Ranked', rankSet: 'rs', conditions: [{ action: 'buy' }] },
    ],
    rankSets: [
      {
        uid: 'rs',
        label: 'Ranks',
        ranks: [
          { rank: 1, label: 'Bronze', times: 1 },
          { rank: 2, label: 'Silver', times: 5, deliverables: [{ deliverable: 'gold', amount: 5 }] },
        ],
      },
    ],
    triggers: [
      {
        uid: 't-lucky',
        label: 'Lucky',
        type: 'OneTimeOnly',
        randomizedPrize: true,
        limited: true,
        limit: 10,
        conditions: [{ action: 'spin' }],
        deliverables: [
          { deliverable: 'gold', amount: 1, weight: 3 },
          { deliverable: 'chest', amount: 1, weight: 1 },
        ],
      },
    ],
    levels: [
      { uid: 'l1', label: 'One', level: 1, target: 0 },
      { uid: 'l2', label: 'Two', level: 2, target: 100, deliverables: [{ deliverable: 'chest', amount: 1 }] },
    ],
    leaderboards: [
      { uid: 'lb-week', label: 'Weekly', type: 1, season: 'weekly' },
      {
        uid: 'lb-buys',
        label: 'Buyers',
        type: 0,
        metric: { action: 'buy' },
        startDate: '2026-01-01T00:00:00',
        endDate: '2027-01-01T00:00:00',
      },
    ],
    stores: [
      {
        uid: 'st',
        label: 'Store',
        bundles: [
          {
            uid: 'bd',
            label: 'Bundle',
            cost: 10,
            costDeliverable: 'gold',
            contents: [{ deliverable: 'banner', amount: 1 }],
          },
        ],
      },
    ],
  };
}

/** Problem lines of the valid catalog after `change` (as JSON); [] when it is still valid. */
export function problemsAfter(change: (catalog: RawCatalog) => void): string[] {
  const catalog = validCatalog();
  change(catalog);
  const result = parseCatalog(JSON.stringify(catalog), 'catalog.json');
  return result.ok ? [] : result.problems;
}
