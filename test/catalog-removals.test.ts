/**
 * A start whose catalog file removes entries of the last published catalog (another game's file
 * started on this data) logs what it removes, section by section, and stops unless
 * CATALOG_CONFIRM_REMOVALS=true.
 */
import pino from 'pino';
import { ConfigurationError } from '../app/configuration-error';
import { startTestService } from './support/service';

const GAME = `
version: 1
deliverables: [{ uid: gold, label: Gold, type: Prize, kind: Currency }]
actions:
  - { uid: act-play, identifier: play, points: 1 }
  - { uid: act-win, identifier: win, points: 5, deliverables: [{ deliverable: gold, amount: 1 }] }
badges: [{ uid: b-winner, label: Winner, type: OneTimeOnly, conditions: [{ action: win }] }]
`;
/** Another game: keeps play, adds shop, drops win, gold and the badge. */
const OTHER = `
version: 1
actions:
  - { uid: act-play, identifier: play, points: 1 }
  - { uid: act-shop, identifier: shop, points: 2 }
`;

describe('a start whose catalog removes entries of the published one', () => {
  it('logs one line per section with what it removes and stops, unless CATALOG_CONFIRM_REMOVALS=true', async () => {
    const first = await startTestService({ catalogYaml: GAME });
    await first.close();
    const dataDir = first.dataDir;
    const lines: { level: number; section?: string; removed?: string[]; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });

    const refused = startTestService({ dataDir, catalogYaml: OTHER, log });
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
    await expect(refused).rejects.toMatchObject({
      problems: [
        expect.stringMatching(
          /catalog\.yaml removes entries of the published catalog \(version 1\): deliverables gold; actions act-win; badges b-winner\. Start with CATALOG_CONFIRM_REMOVALS=true to publish it anyway/,
        ),
      ],
    });
    expect(lines.filter((l) => l.section)).toEqual([
      expect.objectContaining({ level: 40, section: 'deliverables', removed: ['gold'] }),
      expect.objectContaining({ level: 40, section: 'actions', removed: ['act-win'] }),
      expect.objectContaining({ level: 40, section: 'badges', removed: ['b-winner'] }),
    ]);
    expect(lines.find((l) => l.section === 'actions')!.msg).toBe(
      'the catalog file removes 1 actions of catalog version 1: act-win',
    );

    // Confirmed, it is published as version 2; the same file again removes nothing more.
    const confirmed = await startTestService({
      dataDir,
      catalogYaml: OTHER,
      env: { CATALOG_CONFIRM_REMOVALS: 'true' },
    });
    expect(confirmed.service.deps.catalog().version).toBe(2);
    const again = await confirmed.restart({ catalogYaml: OTHER, env: {} });
    expect(again.service.deps.catalog().version).toBe(2);
    await again.close();
  }, 120_000);

  it('adding entries needs no confirmation', async () => {
    const first = await startTestService({ catalogYaml: OTHER });
    const next = await first.restart({
      catalogYaml: GAME.replace('actions:', 'actions:\n  - { uid: act-shop, identifier: shop, points: 2 }'),
    });
    expect(next.service.deps.catalog().version).toBe(2);
    await next.close();
  }, 120_000);
});
