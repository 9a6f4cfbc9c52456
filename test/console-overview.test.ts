/**
 * The console's Overview in a real browser (test/support/browser.ts): the first page after signing
 * in, drawing the daily analytics of a game with data and of an empty log, with the numbers as
 * tables, a CSV to download, and no error in the console (a Content-Security-Policy violation is
 * one). Saved as test-output/console/overview.png (docs/console/overview.png is a copy).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';
import { eventually } from './support/process';

const SCREENSHOTS = path.join(__dirname, '..', 'test-output', 'console');
const DAY_MS = 86_400_000;
// Page walks wait on many steps, each with a generous deadline for a loaded machine.
jest.setTimeout(120_000);
/** A day (UTC, the demo catalog's zone) `back` days before today. */
const utcDay = (back = 0) => new Date(Date.now() - back * DAY_MS).toISOString().slice(0, 10);

describeInBrowser('the console Overview', () => {
  let browser: Browser;
  const services: TestService[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of services) await s.close();
  });

  /** A fresh service, and a signed-in tab on its console; the page's uncaught errors and console errors are kept. */
  async function consoleOf(t: TestService): Promise<{ page: Page; errors: string[] }> {
    const listening = await t.service.listen(0);
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base);
    await page.getByLabel('API key').fill(KEYS.auditor);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // From here on: the sign-in's probe of the key is answered 1001 (HTTP 400) by design.
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    return { page, errors };
  }

  /**
   * Waits (30 s at most) until the table of `caption` has `count` rows, its header's included. Polled
   * from here: a predicate evaluated in the page would need the eval its security policy forbids.
   */
  async function rowsOf(page: Page, caption: string, count: number): Promise<void> {
    const rows = `[...document.querySelectorAll('table')].find((t) => t.caption?.textContent === ${JSON.stringify(caption)})?.rows.length ?? 0`;
    await eventually(async () => expect([caption, await page.evaluate(rows)]).toEqual([caption, count]), 30_000, 50);
  }

  async function started(): Promise<TestService> {
    const t = await startTestService();
    services.push(t);
    return t;
  }

  it('opens on the Overview: players, actions, points, the economy, levels, badges and sales, each with its numbers and CSV', async () => {
    const t = await started();
    const [a, b] = [randomUUID(), randomUUID()];
    const send = async (p: string, body: object) =>
      expect((await t.http.post(p).set(server).send(body)).body.code).toBe(200);
    // Ten purchases earn A 50 gold, the Shopper ranks and level 2; the gold buys a gem pack.
    for (let i = 0; i < 10; i++)
      await send('/v1/action/process', { name: 'purchase', referenceId: randomUUID(), playerId: a });
    await send('/v1/store/buy', { playerId: a, referenceId: 'bd-gems' });
    await send('/v1/action/process', { name: 'purchase', referenceId: randomUUID(), playerId: b });

    const { page, errors } = await consoleOf(t);
    await page.goto(`${page.url().split('#')[0]}#/overview/${utcDay(6)}/${utcDay()}`);
    const today = utcDay();
    const activity = page.getByRole('table', { name: 'Active players and actions per day' });
    await activity.getByRole('row', { name: `${today} 2 11` }).waitFor();
    await rowsOf(page, 'Active players and actions per day', 1 + 7);
    // The legends name their series at once, not `--` until the pointer is over the chart.
    await page.locator('.u-legend').first().waitFor();
    const legends = await page.locator('.u-legend').allTextContents();
    expect(legends.join(' ')).toContain('Active players');
    expect(legends.join(' ')).not.toContain('--');
    const levels = page.getByRole('table', { name: 'Levels reached in the range' });
    await levels.getByRole('row', { name: '1: Rookie lvl-1 2' }).waitFor();
    await levels.getByRole('row', { name: '2: Regular lvl-2 1' }).waitFor();
    await page
      .getByRole('table', { name: 'Bundles bought in the range' })
      .getByRole('row', { name: 'bd-gems 1' })
      .waitFor();
    const most = page.getByRole('table', { name: 'The ten most awarded badges' });
    await most.getByRole('row', { name: 'Shopper b-shopper 3' }).waitFor();
    await expect(most.getByRole('row').allTextContents()).resolves.toEqual([
      'BadgeUidAwarded',
      'Shopperb-shopper3',
      'First purchaseb-first-purchase2',
      'Electronics fanb-electronics-fan0',
      'VIP Customerb-vip0',
    ]);
    await page
      .getByRole('table', { name: 'The ten least awarded badges' })
      .getByRole('row', { name: 'Electronics fan b-electronics-fan 0' })
      .waitFor();
    // Gold: 55 granted by the purchases, 50 spent on the pack, none expired.
    await page
      .getByRole('table', { name: 'gold: issued and taken per day (spent and expired as negative)' })
      .getByRole('row', { name: `${today} 55 0 -50 0` })
      .waitFor();
    // What was issued and never spent has its chart too: the silver chests of two First purchase badges and a level 2.
    await page
      .getByRole('table', { name: 'chest-silver: issued and taken per day (spent and expired as negative)' })
      .getByRole('row', { name: `${today} 3 0 0 0` })
      .waitFor();
    await expect(page.locator('.chart canvas').count()).resolves.toBeGreaterThanOrEqual(6);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'CSV of actions' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`actions_${utcDay(6)}_${today}.csv`);
    const csv = fs.readFileSync(await file.path(), 'utf8').split('\r\n');
    expect([csv[0], csv[7], csv.length]).toEqual(['day,value', `${today},11`, 1 + 7 + 1]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'overview.png'), fullPage: true });

    // The range picker: the last 90 days of this computer's dates, then two days by date.
    await page.getByLabel('Range').selectOption({ label: 'Last 90 days' });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/#\/overview\/90$/);
    await rowsOf(page, 'Active players and actions per day', 1 + 90);
    await page.getByLabel('Range').selectOption({ label: 'Dates' });
    await page.getByLabel('From', { exact: true }).fill(utcDay(1));
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    await rowsOf(page, 'Active players and actions per day', 1 + 2);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('serves the charting library from the service itself, nothing else under its path', async () => {
    const t = await started();
    const script = await t.http.get(`${CONSOLE_PATH}/vendor/uPlot.esm.js`);
    expect([script.status, script.headers['content-type'], script.text]).toEqual([
      200,
      expect.stringMatching(/^(text|application)\/javascript/),
      expect.stringContaining('export { uPlot as default }'),
    ]);
    const style = await t.http.get(`${CONSOLE_PATH}/vendor/uPlot.min.css`);
    expect([style.status, style.headers['content-type']]).toEqual([200, expect.stringMatching(/^text\/css/)]);
    expect((await t.http.get(`${CONSOLE_PATH}/vendor/package.json`)).status).toBe(404);
  });

  it('draws an empty log as days of zeros, saying where there is nothing', async () => {
    const { page, errors } = await consoleOf(await started());
    const activity = page.getByRole('table', { name: 'Active players and actions per day' });
    await activity
      .getByRole('row', { name: /^\d{4}-\d\d-\d\d 0 0$/ })
      .first()
      .waitFor();
    await rowsOf(page, 'Active players and actions per day', 1 + 30);
    await page.getByText('No deliverable was issued or spent in this range.').waitFor();
    await page.getByText('No bundle was bought in this range.').waitFor();
    await page
      .getByRole('table', { name: 'Levels reached in the range' })
      .getByRole('row', { name: '4: Legend lvl-4 0' })
      .waitFor();
    await page
      .getByRole('table', { name: 'The ten least awarded badges' })
      .getByRole('row', { name: 'First purchase b-first-purchase 0' })
      .waitFor();
    await expect(page.locator('.chart canvas').count()).resolves.toBeGreaterThanOrEqual(5);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a player their actions per day over the last 30 days', async () => {
    const t = await started();
    const playerId = randomUUID();
    for (let i = 0; i < 3; i++)
      expect(
        (
          await t.http
            .post('/v1/action/process')
            .set(server)
            .send({ name: 'login', referenceId: randomUUID(), playerId, timestamp: Date.now() - 2 * DAY_MS })
        ).body.code,
      ).toBe(200);
    const { page, errors } = await consoleOf(t);
    await page.goto(`${page.url().split('#')[0]}#/player/${playerId}`);
    const table = page.getByRole('table', { name: 'Actions per day' });
    await rowsOf(page, 'Actions per day', 1 + 30);
    // Two days ago in this computer's dates (the browser's), whatever its zone.
    const day = await page.evaluate(
      `(() => { const d = new Date(Date.now() - 2 * ${DAY_MS}); return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0'); })()`,
    );
    await table.getByRole('row', { name: `${day} 3` }).waitFor();
    await expect(
      page.getByRole('region', { name: 'Activity' }).locator('.chart canvas').count(),
    ).resolves.toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
