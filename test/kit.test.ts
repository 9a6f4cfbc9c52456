/**
 * The web components (sdk/src/components) on the service's demo page, /kit, in a real browser
 * (Debian's chromium, driven by playwright-core): with a Client key of the page's host and a
 * player's token, each element shows the seeded player's data, and the leaderboard and profile
 * move after the player's action, read again on the refresh interval (a Client key may not read
 * the feed); with a key that may read the feed, they move on the player's events alone. The page
 * is saved as a screenshot in test-output/kit/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { eventually } from './support/process';
import { COMPONENTS_PATH, KIT_PATH } from '../read-api/kit/route';
import { KEYS, server, startTestService, type TestService } from './support/service';

const SCREENSHOTS = path.join(__dirname, '..', 'test-output', 'kit');
const STEP_TIMEOUT_MS = 15_000;
jest.setTimeout(120_000);

/** A small game of its own, so that the demo catalog's changes do not move these numbers. */
const CATALOG = `
version: 1
settings: { timezone: UTC, autoRegisterPlayers: true }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-play, identifier: play, points: 10, deliverables: [{ deliverable: gold, amount: 3 }] }
  - { uid: act-quest, identifier: quest, points: 2 }
badges:
  - { uid: b-first-game, label: First game, type: OneTimeOnly, points: 5, conditions: [{ action: play, challenge: { times: 1 } }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
leaderboards:
  - { uid: lb-all, label: All-time points, type: 0, startDate: 2026-01-01T00:00:00, endDate: 2036-01-01T00:00:00 }
streaks:
  - { uid: s-daily, label: Daily quest, period: Day, conditions: [{ action: quest }] }
missions:
  - uid: m-routine
    label: Daily routine
    repeat: Daily
    steps:
      - { uid: m-play, label: Play, condition: { action: play } }
      - { uid: m-quest, label: Finish the quest, condition: { action: quest } }
leagues:
  - uid: lg-weekly
    label: Weekly league
    period: Week
    cohortSize: 10
    tiers: [{ uid: bronze, label: Bronze, promote: 1 }, { uid: silver, label: Silver }]
`;

describeInBrowser('the web components on the demo page', () => {
  let t: TestService;
  let browser: Browser;
  let port: number;

  beforeAll(async () => {
    t = await startTestService({ catalogYaml: CATALOG });
    port = ((await t.service.listen(0)).address() as AddressInfo).port;
    // play.example.com, a tenant domain of the tests' Client key, is this machine: the page is that tenant's.
    browser = await launchChromium('MAP play.example.com 127.0.0.1');
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function act(playerId: string, name: 'play' | 'quest') {
    const res = await t.http.post('/v1/action/process').set(server).send({ name, referenceId: randomUUID(), playerId });
    expect(res.body.code).toBe(200);
  }

  /** Board of one seeded player (play, quest: 17 points, level 1) between a rival with 25 and one with 2. */
  async function seed(): Promise<{ player: string; rival: string }> {
    const [player, rival, last] = [randomUUID(), randomUUID(), randomUUID()];
    await act(player, 'play');
    await act(player, 'quest');
    await act(rival, 'play');
    await act(rival, 'play');
    await act(last, 'quest');
    return { player, rival };
  }

  async function openKit(settings: Record<string, string>): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://play.example.com:${port}${KIT_PATH}#${new URLSearchParams(settings)}`);
    return { page, errors };
  }

  /** An attribute of the first element a selector finds inside the components' shadow roots (playwright's CSS pierces them). */
  const attribute = (page: Page, selector: string, name: string) =>
    page.locator(selector).first().getAttribute(name, { timeout: STEP_TIMEOUT_MS });

  async function expectAttribute(page: Page, selector: string, name: string, value: string) {
    await eventually(async () => expect(await attribute(page, selector, name)).toBe(value), STEP_TIMEOUT_MS);
  }

  it('is a page with its script, style and components as files of the same origin, under the security policy', async () => {
    const page = await t.http.get(KIT_PATH);
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const components = await t.http.get(COMPONENTS_PATH);
    expect([components.status, components.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    // One module, imports resolved: a page anywhere loads it as it is.
    expect(components.text).not.toMatch(/^import\b|\bimport\s*["'{*]/m);
    for (const name of ['gm-leaderboard', 'gm-profile', 'gm-badges', 'gm-streaks', 'gm-missions', 'gm-league'])
      expect(components.text).toContain(`"${name}"`);
    expect((await t.http.get(`${KIT_PATH}/kit.js`)).status).toBe(200);
  });

  it("shows a Client key's player each element's data, and the board and profile move after the player's action", async () => {
    const { player, rival } = await seed();
    const token = (await t.http.post('/v1/players/token').set(server).send({ playerId: player })).body.data.token;
    const settings = { key: KEYS.client, player, token, board: 'lb-all', league: 'lg-weekly', refresh: '1' };
    const { page, errors } = await openKit(settings);

    await expectAttribute(page, 'gm-profile [data-points]', 'data-points', '17');
    await expectAttribute(page, 'gm-profile [data-level]', 'data-level', '1');
    await expectAttribute(page, 'gm-profile [data-deliverable="gold"]', 'data-amount', '3');
    await page.locator('gm-badges [data-badge="b-first-game"]').waitFor();
    await expectAttribute(page, 'gm-streaks [data-streak="s-daily"]', 'data-length', '1');
    await expectAttribute(page, 'gm-missions [data-mission="m-routine"]', 'data-status', 'Completed');
    // The player among their neighbours: the rival above, the last below.
    await expectAttribute(page, 'gm-leaderboard li.me', 'data-rank', '2');
    await expectAttribute(page, 'gm-leaderboard li[data-rank="1"]', 'data-player', rival);
    // The first players of the week's league, one cohort: the player second, behind the rival.
    await expectAttribute(page, 'gm-league [part="summary"]', 'data-zone', 'Safe');
    await expectAttribute(page, 'gm-league li.me', 'data-rank', '2');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'kit.png'), fullPage: true });

    await act(player, 'play');
    await expectAttribute(page, 'gm-leaderboard li.me', 'data-rank', '1');
    await expectAttribute(page, 'gm-leaderboard li[data-rank="2"]', 'data-player', rival);
    await expectAttribute(page, 'gm-profile [data-points]', 'data-points', '27');
    await expectAttribute(page, 'gm-profile [data-level]', 'data-level', '2');
    await expectAttribute(page, 'gm-league [part="summary"]', 'data-zone', 'Promotion');
    await expectAttribute(page, 'gm-league li.me', 'data-rank', '1');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows the service's refusal in the element: a token of another player is a 4007", async () => {
    const { player } = await seed();
    const token = (await t.http.post('/v1/players/token').set(server).send({ playerId: randomUUID() })).body.data.token;
    const { page } = await openKit({ key: KEYS.client, player, token });
    await expectAttribute(page, 'gm-profile [part="error"]', 'data-code', '4007');
    // A board needs no token: it shows.
    await expectAttribute(page, 'gm-leaderboard li.me', 'data-points', '17');
    await page.context().close();
  });

  it("with a key that may read the feed, moves on the player's events, without an interval", async () => {
    const { player } = await seed();
    // An hour's interval: only the feed can bring the change within the test.
    const { page } = await openKit({ key: KEYS.server, player, board: 'lb-all', refresh: '3600' });
    await expectAttribute(page, 'gm-leaderboard li.me', 'data-points', '17');
    await expectAttribute(page, 'gm-streaks [data-streak="s-daily"]', 'data-length', '1');
    await act(player, 'play');
    await act(player, 'quest');
    // 29 points: more than any player the earlier tests made.
    await expectAttribute(page, 'gm-leaderboard li.me', 'data-rank', '1');
    await expectAttribute(page, 'gm-profile [data-points]', 'data-points', '29');
    await page.context().close();
  });
});
