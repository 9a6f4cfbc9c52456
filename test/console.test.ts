/**
 * The console in a real browser (Debian's chromium, driven by playwright-core), against the
 * service in this process: signing in, the pages an operator reads, and an action's trace before
 * and after its reversal. Each main page is saved as a screenshot in test-output/console/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createHash, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { describeInBrowser, launchChromium } from './support/browser';
import { eventually } from './support/process';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';
import { DEMO_CATALOG_FILE } from '../shared/adapters/config/env';

const SCREENSHOTS = path.join(__dirname, '..', 'test-output', 'console');
const STEP_TIMEOUT_MS = 15_000;
// A page walk is many steps; each has STEP_TIMEOUT_MS, the whole walk this.
jest.setTimeout(120_000);

describeInBrowser('the console', () => {
  let t: TestService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestService();
    const listening = await t.service.listen(0);
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`;
    browser = await launchChromium();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh tab (its own sessionStorage) at a laptop's size; every URL it asks for is kept, and the script's uncaught errors. */
  async function openConsole(): Promise<{ page: Page; urls: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // A step that does not happen fails naming itself, before the test's timeout; generous for a loaded machine.
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const urls: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base);
    return { page, urls, errors };
  }

  async function signIn(page: Page, key: string) {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** What the tab keeps in its sessionStorage (evaluated in the page, whose globals these types do not know). */
  const sessionValues = (page: Page) => page.evaluate('Object.values(sessionStorage)');

  const shoot = (page: Page, name: string, options: { fullPage?: boolean } = {}) =>
    page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), ...options });

  async function processPurchase(playerId: string, referenceId: string) {
    const res = await t.http.post('/v1/action/process').set(server).send({ name: 'purchase', referenceId, playerId });
    expect(res.body).toMatchObject({ code: 200, data: { earnedPoints: 30 } });
  }

  it('is a page with its script and style as files of the same origin, under the security policy', async () => {
    const page = await t.http.get(CONSOLE_PATH);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // No inline script: every <script> names its file.
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = await t.http.get(`${CONSOLE_PATH}/main.js`);
    expect([script.status, script.headers['content-type']]).toEqual([
      200,
      expect.stringMatching(/^(text|application)\/javascript/),
    ]);
    expect((await t.http.get(`${CONSOLE_PATH}/nothing.js`)).status).toBe(404);
  });

  it('says when a key is wrong, refuses Client keys, and signs out a key no longer accepted', async () => {
    const { page, errors } = await openConsole();
    await signIn(page, 'not-a-key');
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'This API key is not valid. Check it and try again.',
    );
    await signIn(page, KEYS.client);
    await page.getByText('Client keys cannot use the console').waitFor();
    await expect(page.getByRole('navigation', { name: 'Console pages' }).isVisible()).resolves.toBe(false);
    await expect(sessionValues(page)).resolves.toEqual([]);

    // A key the service stops accepting mid-session (revoked): the next read signs the tab out.
    await signIn(page, KEYS.auditor);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.evaluate(`sessionStorage.setItem(sessionStorage.key(0), 'revoked-key')`);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByText('The service no longer accepts this key. Sign in again.').waitFor();
    await expect(sessionValues(page)).resolves.toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a player, the trace of their action with each balance before and after, and its reversal', async () => {
    const playerId = randomUUID();
    const referenceId = `order-${randomUUID()}`;
    await processPurchase(playerId, referenceId);
    const { page, urls, errors } = await openConsole();
    await signIn(page, KEYS.server);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    await page.getByRole('link', { name: 'Player', exact: true }).click();
    await page.getByLabel('Player id').fill(playerId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('Progress to level 2: 30 of 100 points, 30% of the way from level 1 to 2').waitFor();
    // Registered by its first action: named by its id.
    await expect(
      page.getByRole('term').filter({ hasText: 'Username' }).locator('xpath=following-sibling::dd[1]').textContent(),
    ).resolves.toBe(playerId);
    await page.getByRole('cell', { name: 'First purchase' }).waitFor();
    await page
      .getByRole('region', { name: 'Chests' })
      .getByRole('cell', { name: 'Silver chest', exact: true })
      .waitFor();
    await page.getByText('Action processed').waitFor();
    await shoot(page, 'player');

    // Streaks and caps: another player with a daily quest and a capped ad.
    const questing = randomUUID();
    for (const name of ['login', 'daily_quest', 'watch_ad'])
      expect(
        (
          await t.http
            .post('/v1/action/process')
            .set(server)
            .send({ name, referenceId: randomUUID(), playerId: questing })
        ).body.code,
      ).toBe(200);
    await page.getByLabel('Player id').fill(questing);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page
      .getByRole('table', { name: "The player's runs" })
      .getByRole('row', { name: /^Daily quest 1 1 0 \d{4}-\d{2}-\d{2} / })
      .waitFor();
    await page
      .getByRole('table', { name: 'Caps with a use this period' })
      .getByRole('row', { name: /^times watch_ad Day \d{4}-\d{2}-\d{2} 1 5$/ })
      .waitFor();
    await page
      .getByRole('table', { name: 'Caps with a use this period' })
      .getByRole('row', { name: /^points watch_ad Week \d{4}-W\d{2} 2 50$/ })
      .waitFor();
    // The demo catalog's daily routine (log in, then the daily quest), and a mission locked behind the VIP badge.
    await page
      .getByRole('table', { name: "The player's missions" })
      .getByRole('row', { name: /^Daily routine Completed Log in ✓, Finish the daily quest ✓ \d{4}-\d{2}-\d{2} / })
      .waitFor();
    await page
      .getByRole('table', { name: "The player's missions" })
      .getByRole('row', { name: 'Big spender Locked Spin three times 0/3, Purchase for 1000 0/1000 — —' })
      .waitFor();
    await shoot(page, 'player-streaks-caps');
    await page.getByLabel('Player id').fill(playerId);
    await page.getByRole('button', { name: 'Look up' }).click();
    // The previous player's actions may still be on the page: wait for this player's own action.
    await page.getByRole('link', { name: `Trace of action ${referenceId}` }).waitFor();

    await page.getByRole('link', { name: `Trace of action ${referenceId}` }).click();
    const first = page.getByRole('listitem', { name: '1. Action processed' });
    // The action's 10 points and the badge's 20; its 5 gold; the badge's chest.
    await first.getByRole('row', { name: 'points 0 → 30 +30' }).waitFor();
    await first.getByRole('row', { name: 'gold 0 → 5 +5' }).waitFor();
    await first.getByRole('row', { name: 'chest-silver 0 → 1 +1' }).waitFor();
    await first.getByRole('cell', { name: /First purchase \(OneTimeOnly\)/ }).waitFor();

    const reversed = await t.http
      .post('/v1/action/delete')
      .set(server)
      .send({ name: 'purchase', referenceId, playerId });
    expect(reversed.body).toEqual({ code: 200 });
    await page.getByRole('button', { name: 'Refresh' }).click();
    const second = page.getByRole('listitem', { name: '2. Action reversed' });
    await second.getByRole('row', { name: 'points 30 → 0 -30' }).waitFor();
    await second.getByRole('row', { name: 'gold 5 → 0 -5' }).waitFor();
    await second.getByRole('row', { name: 'chest-silver 1 → 0 -1' }).waitFor();
    await expect(page.getByRole('definition').filter({ hasText: /^yes$/ }).count()).resolves.toBe(1);
    await shoot(page, 'trace', { fullPage: true });

    // The key went in a header only: never in an address the page asked for, nor in its own.
    expect(urls.filter((u) => u.includes(KEYS.server))).toEqual([]);
    expect(page.url()).not.toContain(KEYS.server);
    // The tab keeps the key and its tier (which pages to offer), nothing else.
    await expect(sessionValues(page)).resolves.toEqual([KEYS.server, 'Server']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the leaderboards with ties, a player with their neighbours, the catalog and the operations', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    for (const player of [a, b]) await processPurchase(player, randomUUID());
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    await page.getByLabel('Board').selectOption({ label: 'Most purchases' });
    await page.getByRole('row', { name: new RegExp(`^1 \\(tied\\) ${a}`) }).waitFor();
    await page.getByRole('row', { name: new RegExp(`^1 \\(tied\\) ${b}`) }).waitFor();
    await page.getByLabel('Player id').fill(c);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText(`Player ${c} has no score on this board.`).waitFor();
    await page.getByLabel('Player id').fill(a);
    await page.getByRole('button', { name: 'Show' }).click();
    const neighbours = page.getByRole('table', { name: 'The player and their neighbours' });
    await neighbours.getByRole('row', { name: new RegExp(`1 \\(tied\\) ${a} \\(this player\\)`) }).waitFor();
    await neighbours.getByRole('row', { name: new RegExp(`^1 \\(tied\\) ${b} `) }).waitFor();
    await page.getByLabel('Board').selectOption({ label: 'Weekly points' });
    await expect(page.getByLabel('Season').isVisible()).resolves.toBe(true);
    await page.getByLabel('Season').fill('2026-11');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('season: not a weekly period').waitFor();
    await page.getByLabel('Season').fill('');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('table', { name: /Weekly points/ }).waitFor();
    await shoot(page, 'leaderboards');

    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('link', { name: 'Badges' }).click();
    await page.getByRole('cell', { name: 'VIP Customer' }).waitFor();
    await page
      .getByRole('row', { name: /VIP Customer/ })
      .getByText('Conditions and grants')
      .click();
    await page.getByText('purchase, amount adding up to 1000 or more, within 30 days').waitFor();
    await page.getByText('Grants: Welcome VIP banner × 1, Double gold × 1').waitFor();
    await page
      .getByRole('row', { name: /Electronics fan/ })
      .getByText('Conditions and grants')
      .click();
    await page.getByText('3 × purchase where category eq electronics').waitFor();
    await page
      .getByRole('cell', {
        name: 'Ranked: 1. Bronze at 2 times, +10 points; 2. Silver at 5 times, +25 points; 3. Gold at 10 times, +100 points',
      })
      .waitFor();
    await shoot(page, 'catalog');
    await page.getByRole('link', { name: 'Chests' }).click();
    // The catalog's chests are listed: no uid to know beforehand.
    await page.getByRole('row', { name: /Adventurer chest chest-leveled PlayerLevel yes/ }).waitFor();
    await page.getByRole('link', { name: 'Odds of Silver chest' }).click();
    // 70 of the pool's 110 (points included): what a draw gives, not 70 %.
    await page.getByRole('row', { name: 'Gold 10 to 30 63.64%' }).waitFor();
    await page.getByRole('link', { name: 'Rank sets' }).click();
    await page
      .getByRole('table', { name: 'Shopper ranks (rs-shopper)' })
      .getByRole('row', { name: '2 Silver 5 times 25' })
      .waitFor();
    await page.getByRole('link', { name: 'Stores' }).click();
    await page.getByRole('row', { name: /Gem pack bd-gems 50 Gold 10 of 10/ }).waitFor();

    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByText('No webhooks are configured.').waitFor();
    await page.getByRole('definition').first().waitFor();
    await page.getByRole('button', { name: 'Run verify' }).click();
    await page.getByText(/^No differences: \d+ events replayed/).waitFor();
    await shoot(page, 'operations');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows the catalog's streaks, missions, currencies, action caps and board definitions", async () => {
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('row', { name: /^watch_ad act-watch-ad .* 5 times a Day, 50 points a Week / }).waitFor();
    await page.getByRole('link', { name: 'Streaks', exact: true }).click();
    const streak = page.getByRole('row', {
      name: /^Daily quest s-daily-quest Day up to 2, one every 7 periods in a row yes/,
    });
    await streak.getByText('Conditions and milestones').click();
    await page.getByText('Counts: daily_quest').waitFor();
    await page.getByText('7 in a row: +50 points, Silver chest × 1').waitFor();
    await page.getByRole('link', { name: 'Missions', exact: true }).click();
    await page
      .getByRole('row', { name: /^Big spender m-big-spender once any order badge b-vip always 100 yes/ })
      .waitFor();
    await page
      .getByRole('row', { name: /^Daily routine/ })
      .getByText('Steps and grants')
      .click();
    await page.getByText('Finish the daily quest: daily_quest').waitFor();
    await page.getByText('Grants: Gems × 10').waitFor();
    await page.getByRole('link', { name: 'Currencies', exact: true }).click();
    await page.getByRole('row', { name: 'Gems gems never 1000 a Day yes' }).waitFor();
    await page.getByRole('row', { name: 'Stars stars 30 days after the grant — yes' }).waitFor();
    await page.getByRole('link', { name: 'Board definitions', exact: true }).click();
    await page.getByRole('row', { name: /^Weekly points lb-weekly each Week points — / }).waitFor();
    await page
      .getByRole('row', { name: /^Most purchases lb-buyers all time times purchase was processed — / })
      .waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows the catalog's segments (conditions in words, players in each now) and who a segment-limited entry is for", async () => {
    // The demo catalog with segments, its electronics badge for one of them: a service of its own,
    // since the other tests read the demo catalog as it is.
    const catalog = parse(fs.readFileSync(DEMO_CATALOG_FILE, 'utf8'), { version: '1.2' }) as DraftCatalog & {
      badges: { uid: string; segment?: string }[];
      segments?: unknown[];
    };
    catalog.segments = [
      { uid: 'seg-dach', label: 'Germany and Austria', conditions: [{ attribute: 'country', in: ['DE', 'AT'] }] },
      { uid: 'seg-climbers', label: 'Climbers', conditions: [{ level: { min: 2 } }, { points: { max: 500 } }] },
    ];
    catalog.badges.find((b) => b.uid === 'b-electronics-fan')!.segment = 'seg-dach';
    const segmented = await startTestService({ catalogYaml: stringify(catalog) });
    try {
      const created = await segmented.http
        .post('/v1/player/create')
        .set(server)
        .send({ playerId: randomUUID(), attributes: { country: 'AT' } });
      expect(created.body.code).toBe(200);
      await eventually(async () => {
        const res = await segmented.http.get('/v1/admin/segments').set(server);
        return res.body.data?.[0]?.players === 1;
      });
      const listening = await segmented.service.listen(0);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`);
      await signIn(page, KEYS.auditor);
      await page.getByRole('link', { name: 'Catalog' }).click();
      await page.getByRole('link', { name: 'Segments', exact: true }).click();
      await page.getByRole('row', { name: 'Germany and Austria seg-dach 1 country is DE or AT' }).waitFor();
      await page
        .getByRole('row', { name: 'Climbers seg-climbers 0 level 2 or more, and points at most 500' })
        .waitFor();
      await page.getByRole('link', { name: 'Badges', exact: true }).click();
      await page
        .getByRole('row', { name: /^Electronics fan/ })
        .getByText('Only for: Germany and Austria')
        .waitFor();
      // An entry for everyone says nothing of segments.
      await expect(
        page
          .getByRole('row', { name: /^VIP Customer/ })
          .getByText(/Only for/)
          .count(),
      ).resolves.toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await segmented.close();
    }
  });

  it("shows the experiments and a variant's results against the control, intervals drawn and daily players charted", async () => {
    const catalog = parse(fs.readFileSync(DEMO_CATALOG_FILE, 'utf8'), { version: '1.2' }) as DraftCatalog & {
      experiments?: unknown[];
    };
    catalog.experiments = [
      {
        uid: 'exp-login-points',
        label: 'Do more login points bring players back?',
        variants: [
          { uid: 'control', weight: 1 },
          { uid: 'generous', weight: 1, patch: { actions: { 'act-login': { points: 50 } } } },
        ],
      },
    ];
    const experimenting = await startTestService({ catalogYaml: stringify(catalog) });
    try {
      // Three players in each variant, by the variant rule.
      const inVariant = (playerId: string) =>
        createHash('sha256').update(`exp-login-points:${playerId}`).digest().readUInt32BE(0) < 2 ** 31
          ? 'control'
          : 'generous';
      const joined = { control: 0, generous: 0 };
      while (joined.control < 3 || joined.generous < 3) {
        const playerId = randomUUID();
        const variant = inVariant(playerId);
        if (joined[variant] === 3) continue;
        joined[variant] += 1;
        const res = await experimenting.http
          .post('/v1/action/process')
          .set(server)
          .send({ name: 'login', playerId, referenceId: randomUUID() });
        expect(res.body.code).toBe(200);
      }
      await eventually(async () => {
        const res = await experimenting.http.get('/v1/admin/experiments').set(server);
        return res.body.data?.[0]?.variants.every((v: { players: number }) => v.players === 3);
      });
      const listening = await experimenting.service.listen(0);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`);
      await signIn(page, KEYS.auditor);
      await page.getByRole('link', { name: 'Experiments', exact: true }).click();
      await page
        .getByRole('row', {
          name: 'Do more login points bring players back? exp-login-points Running always control 50%, 3 · generous 50%, 3',
        })
        .waitFor();
      await page.getByRole('link', { name: 'Do more login points bring players back?' }).click();
      await page.getByRole('table', { name: 'Players per variant' }).getByRole('row', { name: 'control 3' }).waitFor();
      // Every player logged in once: 5 points each under the control, 50 under the generous variant.
      const points = page.getByRole('table', { name: 'Points per player' });
      await points.getByRole('row', { name: /^control 5 — — — —$/ }).waitFor();
      await points.getByRole('row', { name: /^generous 50 \+45 45 to 45 / }).waitFor();
      await points.getByRole('img', { name: 'difference +45, 95% interval 45 to 45' }).waitFor();
      await page.getByText('Daily active players per variant').first().waitFor();
      await page.screenshot({ path: path.join(SCREENSHOTS, 'experiment-results.png'), fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await experimenting.close();
    }
  });

  /** The demo catalog (the service's) as the simulation's file input takes it: JSON, changed by `edit`. */
  function draftUpload(name: string, edit: (catalog: DraftCatalog) => void) {
    const catalog = parse(fs.readFileSync(DEMO_CATALOG_FILE, 'utf8'), { version: '1.2' }) as DraftCatalog;
    edit(catalog);
    return { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(catalog)) };
  }
  type DraftCatalog = {
    actions: { identifier: string; points: number; deliverables?: { deliverable: string; amount: number }[] }[];
    levels: { target: number }[];
  };
  const purchaseOf = (catalog: DraftCatalog) => catalog.actions.find((a) => a.identifier === 'purchase')!;

  it('simulates an uploaded draft catalog on the operations page: the affected player before and after', async () => {
    const playerId = randomUUID();
    const username = `Ada-${randomUUID().slice(0, 8)}`;
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId, username })).body.code).toBe(200);
    await processPurchase(playerId, randomUUID());
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByLabel('Draft catalog', { exact: true }).setInputFiles(
      draftUpload('doubled.json', (catalog) => {
        purchaseOf(catalog).points *= 2;
      }),
    );
    await page.getByLabel('Player ids').fill(playerId);
    await page.getByRole('button', { name: 'Run simulation' }).click();
    await page.getByText(/^1 player affected: \d+ events replayed, 1 action decided again\.$/).waitFor();
    // The purchase's 10 points doubled; the First purchase badge's 20 unchanged; still level 1.
    await page
      .getByRole('table', { name: /^Affected players/ })
      .getByRole('row', { name: `${playerId} 30 → 40 1 → 1 — — —` })
      .waitFor();
    await page.getByRole('definition').filter({ hasText: '30 → 40 (+10)' }).waitFor();
    // The boards name their players by username.
    await page
      .getByRole('table', { name: 'All-time boards, top 10' })
      .getByRole('cell', { name: new RegExp(`\\. ${username} \\(40\\)`) })
      .first()
      .waitFor();
    await page.getByText('Problems: recorded facts the draft makes impossible (they stand): none.').waitFor();
    await shoot(page, 'operations-simulate', { fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows each problem of an invalid draft catalog on its own line, and takes a YAML file as the service reads one', async () => {
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.server);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByLabel('Draft catalog', { exact: true }).setInputFiles(
      draftUpload('broken.json', (catalog) => {
        purchaseOf(catalog).deliverables = [{ deliverable: 'no-such-deliverable', amount: 5 }];
        catalog.levels[1].target = -5;
      }),
    );
    await page.getByRole('button', { name: 'Run simulation' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The draft is refused: 2 problems.' });
    await refusal.waitFor();
    const lines = await refusal.getByRole('listitem').allTextContents();
    expect(lines).toEqual(
      expect.arrayContaining([expect.stringContaining('no-such-deliverable'), expect.stringMatching(/^levels\[1\]/)]),
    );
    expect(lines).toHaveLength(2);

    await page.getByLabel('Draft catalog', { exact: true }).setInputFiles({
      name: 'catalog.yaml',
      mimeType: 'application/yaml',
      buffer: fs.readFileSync(DEMO_CATALOG_FILE),
    });
    await page.getByRole('button', { name: 'Run simulation' }).click();
    // The catalog in force, as its file: nothing would change.
    await page.getByText(/^0 players affected: \d+ events replayed, \d+ actions? decided again\.$/).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('works from the keyboard alone, the focus always visible', async () => {
    const { page, errors } = await openConsole();
    await page.keyboard.type(KEYS.auditor);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // Each page starts with the focus on its heading; the navigation is just before it.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Operations');
    await expect(page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).resolves.toBe('solid');
    await page.keyboard.press('Enter');
    await expect(
      page
        .getByRole('heading', { name: 'Operations', level: 1 })
        .evaluate((h1) => h1 === h1.ownerDocument.activeElement),
    ).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText(/^No differences/).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits the player page in a 390 px wide screen: nothing wider than it', async () => {
    const playerId = randomUUID();
    await processPurchase(playerId, randomUUID());
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    await page.goto(base);
    await signIn(page, KEYS.server);
    await page.goto(`${base}#/player/${playerId}`);
    await page.getByRole('cell', { name: 'First purchase' }).waitFor();
    await page.getByText('Action processed').waitFor();
    const wider = await page.evaluate(
      `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 390.5).map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)`,
    );
    expect(wider).toEqual([]);
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await shoot(page, 'player-phone', { fullPage: true });
    await context.close();
  });

  it('traces a chest opening, from the timeline and from the trace form', async () => {
    const playerId = randomUUID();
    await processPurchase(playerId, randomUUID()); // the First purchase badge grants a Silver chest
    const opened = await t.http
      .post('/v1/chest/open')
      .set(server)
      .send({ playerId, chestDeliverableUId: 'chest-silver' });
    const { openingUid } = opened.body.data;
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.server);
    await page.goto(`${base}#/player/${playerId}`);
    // Newest first: the opening, with what it gave by label, then the purchase that earned the chest.
    const entries = page.getByRole('region', { name: 'Timeline' }).getByRole('listitem');
    await entries
      .first()
      .getByText(/^Silver chest: (Gold|Gems|Sword|Points) × \d+/)
      .waitFor();
    await expect(entries.first().textContent()).resolves.toMatch(/^Chest opened/);
    await expect(entries.nth(1).textContent()).resolves.toMatch(
      /^Action processed.*purchase: earned 30 points; Gold × 5.*badge First purchase.*Changes: points \+30, Gold \+5/,
    );
    await page.getByRole('link', { name: `Trace of chest opening ${openingUid}` }).click();
    await page.getByRole('heading', { name: '1. Chest opened', level: 3 }).waitFor();
    await page.getByText('Silver chest (chest-silver)').waitFor();
    await page.getByRole('row', { name: 'chest-silver 1 → 0 -1' }).waitFor();

    await page.goto(`${base}#/trace`);
    await page.getByLabel('Trace of').selectOption('opening');
    await page.getByLabel('Id', { exact: true }).fill(openingUid);
    await page.getByLabel('Player id').fill(playerId);
    await page.getByRole('button', { name: 'Show trace' }).click();
    await page.getByRole('heading', { name: '1. Chest opened', level: 3 }).waitFor();
    expect(page.url()).toContain(`#/trace/opening/${openingUid}/${playerId}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('checks a key at sign-in with a request the service accepts, not a deliberately invalid one', async () => {
    const { page, errors } = await openConsole();
    const answers: string[] = [];
    page.on(
      'response',
      (r) =>
        void (
          r.url().includes('/v1/') && answers.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
        ),
    );
    await signIn(page, KEYS.auditor);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(answers[0]).toBe('GET /v1/auth/key 200');
    expect(answers.filter((a) => !a.endsWith(' 200'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('finds a player by the start of their username, and shows the username on their page', async () => {
    const username = `Grace-${randomUUID().slice(0, 8)}`;
    const playerId = randomUUID();
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId, username })).body.code).toBe(200);
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.getByRole('link', { name: 'Player', exact: true }).click();
    await page.getByLabel('Player id or username').fill(username.slice(0, 12).toLowerCase());
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('link', { name: username }).click();
    await expect(
      page.getByRole('term').filter({ hasText: 'Username' }).locator('xpath=following-sibling::dd[1]').textContent(),
    ).resolves.toBe(username);
    expect(page.url()).toContain(`#/player/${playerId}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows on the timeline each action's own time, and when it was processed if later, with its caps, streaks and missions", async () => {
    const playerId = randomUUID();
    const dayBefore = Date.now() - 24 * 60 * 60 * 1000;
    const act = async (name: string, timestamp?: number) =>
      expect(
        (
          await t.http
            .post('/v1/action/process')
            .set(server)
            .send({ name, playerId, referenceId: randomUUID(), ...(timestamp ? { timestamp } : {}) })
        ).body.code,
      ).toBe(200);
    // The quest of the day before, back-dated: the streak starts there; today's login and quest
    // extend it and complete the daily routine; the sixth ad of the day is over its cap of five.
    await act('daily_quest', dayBefore);
    await act('login');
    await act('daily_quest');
    for (let i = 0; i < 6; i++) await act('watch_ad');
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.goto(`${base}#/player/${playerId}`);
    const entries = page.getByRole('region', { name: 'Timeline' }).getByRole('listitem');
    const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    await entries
      .filter({ hasText: new RegExp(`^Action processed at ${at(dayBefore)}, processed at \\d{4}-\\d\\d-\\d\\d `) })
      .filter({ hasText: 'daily_quest: earned 3 points' })
      .waitFor();
    await entries
      .filter({ hasText: 'login: earned 5 points; mission Daily routine advanced: 1 of 2 steps done' })
      .waitFor();
    await entries
      .filter({
        hasText: /daily_quest: earned \d+ points; .*streak Daily quest extended to 2; mission Daily routine completed/,
      })
      .waitFor();
    await entries.filter({ hasText: 'watch_ad: earned 0 points; capped at 5 times a Day' }).waitFor();
    // Processed when they happened: one time each.
    await expect(entries.filter({ hasText: ', processed at' }).count()).resolves.toBe(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('says why a mission in progress has every step met: a reversal took back the completion its action made', async () => {
    const playerId = randomUUID();
    const act = async (path: string, name: string, referenceId: string) =>
      expect((await t.http.post(path).set(server).send({ name, playerId, referenceId })).body.code).toBe(200);
    // The daily routine (log in, then the daily quest): the first quest completes it, the second
    // counts for nothing; reversing the first leaves every step met by the login and the second.
    await act('/v1/action/process', 'login', 'login');
    await act('/v1/action/process', 'daily_quest', 'quest-1');
    await act('/v1/action/process', 'daily_quest', 'quest-2');
    await act('/v1/action/delete', 'daily_quest', 'quest-1');
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.auditor);
    await page.goto(`${base}#/player/${playerId}`);
    await page
      .getByRole('table', { name: "The player's missions" })
      .getByRole('row', {
        name: /^Daily routine InProgress: every step met, its completion taken back by a reversal; the next action meeting a step completes it Log in ✓, Finish the daily quest ✓ /,
      })
      .waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('says once that a player is unknown, or erased and when, instead of an error in every section', async () => {
    const unknown = randomUUID();
    const { page, errors } = await openConsole();
    await signIn(page, KEYS.server);
    await page.goto(`${base}#/player/${unknown}`);
    await page.getByText(`No player has the id ${unknown}.`).waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(1);
    await expect(page.getByRole('heading', { level: 2 }).count()).resolves.toBe(0);

    // An erased player, whom the profile answers as an unknown one, is said to be erased, and when.
    const erased = randomUUID();
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId: erased })).body.code).toBe(200);
    const erasure = await t.http.post('/v1/admin/players/erase').set(server).send({ playerId: erased });
    expect(erasure.body.code).toBe(200);
    const at = `${new Date(erasure.body.data.erasedAt).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    await page.goto(`${base}#/player/${erased}`);
    await page.getByText(`This player was erased at ${at}.`).waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lets a Mobile key in on the pages its tier reads, each read it may not make saying so in its place', async () => {
    const playerId = randomUUID();
    await processPurchase(playerId, randomUUID());
    const { page } = await openConsole();
    await signIn(page, KEYS.mobile);
    // It lands on the boards, not on an Overview of errors, and is offered only what it may read.
    await page.getByRole('heading', { name: 'Leaderboards', level: 1 }).waitFor();
    await expect(page.getByRole('navigation').getByRole('link').allTextContents()).resolves.toEqual([
      'Leaderboards',
      'Player',
    ]);
    await page.getByLabel('Board').waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    // A page it may not read, typed in, is the boards too.
    await page.goto(`${base}#/overview`);
    await page.getByRole('heading', { name: 'Leaderboards', level: 1 }).waitFor();
    await page.goto(`${base}#/player/${playerId}`);
    await page.getByRole('cell', { name: 'First purchase' }).waitFor();
    await page.getByText('Progress to the next level: Auth tier Mobile is not allowed for this operation').waitFor();
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByRole('alert')
      .filter({ hasText: 'Auth tier Mobile is not allowed' })
      .waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await expect(sessionValues(page)).resolves.toEqual([]);
    await page.context().close();
  });
});
