/**
 * The API reference at /docs in a real browser (Debian's chromium, driven by playwright-core),
 * under the service's own Content-Security-Policy and with every other host unreachable: the page
 * renders the operations of /openapi.json, and "Try it out" calls the API with the key given in
 * Authorize.
 */
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { KEYS, startTestService, type TestService } from './support/service';

describeInBrowser('the API reference page in a browser', () => {
  let t: TestService;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestService();
    const server = await t.service.listen(0);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Offline: any host but this one is refused, so a file fetched from a CDN would fail.
    browser = await launchChromium('MAP * ~NOTFOUND, EXCLUDE 127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders every operation, breaks no policy, asks no other host, and tries an operation with a key', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on(
      'request',
      (r) => void (new URL(r.url()).origin !== origin && !r.url().startsWith('data:') && elsewhere.push(r.url())),
    );
    try {
      await page.goto(`${origin}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const shown = await page.$$eval('.opblock-summary-path', (nodes) =>
        nodes.map((n) => n.getAttribute('data-path')),
      );
      expect(shown.sort()).toEqual(
        ['/health', '/health/ready', ...t.service.routes.map((r) => r.path.replace(/:(\w+)/g, '{$1}'))].sort(),
      );
      expect({ problems, elsewhere }).toEqual({ problems: [], elsewhere: [] });

      // Authorize with a Server key, then run GET /v1/admin/actions from the page.
      await page.click('button.authorize');
      await page.fill('.auth-container input[type=text], .auth-container input[type=password]', KEYS.server);
      await page.click('.auth-container button.authorize');
      await page.click('.modal-ux button.btn-done, .modal-ux .close-modal');
      const operation = page
        .locator('#operations-admin-get_v1_admin_actions, .opblock-get:has([data-path="/v1/admin/actions"])')
        .first();
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.execute').click();
      const answer = operation.locator('.live-responses-table tbody .response').first();
      expect((await answer.locator('.response-col_status').textContent({ timeout: 15_000 }))?.trim()).toBe('200');
      // The envelope of a success: the key was sent, and accepted.
      expect(await answer.locator('.response-col_description pre').first().textContent()).toMatch(/"code": 200/);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('runs process, buy and chest open with the examples as they are: taken by the service, for the same new player', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      await page.click('button.authorize');
      await page.fill('.auth-container input[type=text], .auth-container input[type=password]', KEYS.server);
      await page.click('.auth-container button.authorize');
      await page.click('.modal-ux button.btn-done, .modal-ux .close-modal');
      /** Opens the operation, sends its example unchanged, and answers the envelope it got. */
      const run = async (path: string) => {
        const operation = page.locator(`.opblock-post:has([data-path="${path}"])`).first();
        await operation.locator('.opblock-summary').click();
        await operation.locator('button.execute').click();
        const answer = operation.locator('.live-responses-table tbody .response').first();
        await answer.locator('.response-col_status').waitFor({ timeout: 15_000 });
        return JSON.parse((await answer.locator('.response-col_description pre').first().textContent()) ?? '') as {
          code: number;
          data: unknown;
        };
      };
      const processed = await run('/v1/action/process');
      expect(processed).toMatchObject({ code: 200, data: { earnedPoints: expect.any(Number) } });
      // The player the process example registered: not yet rich enough for the bundle, and owning no chest.
      expect(await run('/v1/store/buy')).toMatchObject({ code: 9001 });
      expect(await run('/v1/chest/open')).toMatchObject({ code: 9011 });
    } finally {
      await page.close();
    }
  }, 90_000);
});
