/**
 * The console's leagues page, in a real browser (as test/console.test.ts): each league's tiers with
 * their players and cohorts this period, and a player's tier, cohort, rank and cohort standings.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';

// Page walks wait on many steps, each with a generous deadline for a loaded machine.
jest.setTimeout(120_000);

describeInBrowser('the console on leagues', () => {
  let t: TestService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestService({
      catalogYaml: `
version: 1
actions: [{ identifier: score, points: 10 }]
leagues:
  - uid: lg-week
    label: Weekly league
    period: Week
    cohortSize: 30
    tiers:
      - { uid: bronze, label: Bronze, promote: 1 }
      - { uid: silver, label: Silver, demote: 1 }
`,
    });
    const listening = await t.service.listen(0);
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("shows each tier's players and cohorts, and a player's standing in their cohort", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    for (const [player, username, times] of [
      [a, 'Ada', 2],
      [b, 'Bo', 1],
    ] as const) {
      expect((await t.http.post('/v1/player/create').set(server).send({ playerId: player, username })).body.code).toBe(
        200,
      );
      for (let i = 0; i < times; i++)
        expect(
          (
            await t.http
              .post('/v1/action/process')
              .set(server)
              .send({ name: 'score', playerId: player, referenceId: randomUUID() })
          ).body.code,
        ).toBe(200);
    }
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base);
    await page.getByLabel('API key').fill(KEYS.auditor);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Leagues' }).click();
    await page.getByRole('row', { name: 'Bronze (bronze) 2 1' }).waitFor();
    await page.getByRole('row', { name: 'Silver (silver) 0 0' }).waitFor();
    await page.getByLabel('Player id').fill(b);
    await page.getByRole('button', { name: 'Show' }).click();
    const standings = page.getByRole('table', { name: 'Cohort standings' });
    await standings.getByRole('row', { name: '1 Ada 20' }).waitFor();
    await standings.getByRole('row', { name: '2 Bo 10' }).waitFor();
    await page.getByText('Settled periods, newest first: None.').waitFor();
    expect(errors).toEqual([]);
  });
});
