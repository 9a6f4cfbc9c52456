/**
 * The console and the API reference opened as someone on another machine opens them: over plain
 * HTTP at a name that is not localhost (chromium maps it to 127.0.0.1, --host-resolver-rules).
 * A policy that upgrades requests to HTTPS, or HSTS, would send the browser to an https://
 * address nothing answers, and the pages would stay blank.
 */
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { CONSOLE_PATH } from '../read-api/console/route';
import { describeInBrowser, launchChromium } from './support/browser';
import { startTestService, type TestService } from './support/service';

const HOST = 'gamification.example.test';

describeInBrowser('the pages over plain HTTP at a name other than localhost', () => {
  let t: TestService;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestService();
    const server = await t.service.listen(0);
    origin = `http://${HOST}:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(`MAP ${HOST} 127.0.0.1, MAP * ~NOTFOUND`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A tab that keeps every request it made that did not get an answer from the service. */
  async function open(path: string): Promise<{ page: Page; failed: string[] }> {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on(
      'request',
      (r) =>
        void (
          !r.url().startsWith(origin) &&
          !r.url().startsWith('data:') &&
          failed.push(`${r.url()}: not the service`)
        ),
    );
    await page.goto(`${origin}${path}`);
    return { page, failed };
  }

  it('the console shows its sign-in form, every file loaded over http', async () => {
    const { page, failed } = await open(CONSOLE_PATH);
    try {
      await page.getByLabel('API key').waitFor({ timeout: 30_000 });
      expect(failed).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('the API reference renders its operations, every file loaded over http', async () => {
    const { page, failed } = await open('/docs');
    try {
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      expect(failed).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
