/**
 * The console's leaderboard page on scoped boards, in a real browser (as test/console.test.ts):
 * the scope picker of a board per country, the teams of an aggregate board, and a player's attributes.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';

// Page walks wait on many steps, each with a generous deadline for a loaded machine.
jest.setTimeout(120_000);

describeInBrowser('the console on scoped leaderboards', () => {
  let t: TestService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestService({
      catalogYaml: `
version: 1
actions:
  - { uid: act-a, identifier: score, points: 10 }
leaderboards:
  - { uid: lb-country, label: By country, type: 0, scope: country }
  - { uid: lb-teams, label: Teams, type: 0, scope: team, aggregate: sum }
  - { uid: lb-team, label: Within a team, type: 0, scope: team }
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

  it("picks a value of a scoped board, lists the values of an aggregate one, and shows a player's attributes", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    let n = 0;
    for (const [player, attributes, times] of [
      [a, { country: 'DE', team: 'red' }, 2],
      [b, { country: 'FR', team: 'blue' }, 1],
    ] as const) {
      expect(
        (await t.http.post('/v1/player/create').set(server).send({ playerId: player, attributes })).body.code,
      ).toBe(200);
      for (let i = 0; i < times; i++)
        expect(
          (
            await t.http
              .post('/v1/action/process')
              .set(server)
              .send({ name: 'score', playerId: player, referenceId: `c${++n}` })
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
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    // A board per team is offered the teams its aggregate sibling ranks; one per country, no such board: typed.
    const offered = () =>
      page.locator('#scope-values option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    await page.getByLabel('Board').selectOption({ label: 'Within a team' });
    await expect(page.getByLabel('Scope (team)').getAttribute('list')).resolves.toBe('scope-values');
    await page.locator('#scope-values option').nth(1).waitFor({ state: 'attached' });
    await expect(offered()).resolves.toEqual(['red', 'blue']);
    await page.getByLabel('Board').selectOption({ label: 'By country' });
    await page.getByText('This board keeps standings per country: enter a value.').waitFor();
    await expect(offered()).resolves.toEqual([]);
    await page.getByLabel('Scope (country)').fill('FR');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('row', { name: new RegExp(`^1 ${b} 10$`) }).waitFor();
    await expect(page.getByRole('row', { name: new RegExp(a) }).count()).resolves.toBe(0);
    await page.getByLabel('Board').selectOption({ label: 'Teams' });
    await expect(page.getByLabel('Scope (team)').isVisible()).resolves.toBe(false);
    await expect(page.getByLabel('Player id').isVisible()).resolves.toBe(false);
    const teams = page.getByRole('table', { name: /Teams/ });
    await teams.getByRole('row', { name: /^1 red 20$/ }).waitFor();
    await teams.getByRole('row', { name: /^2 blue 10$/ }).waitFor();
    // The player page lists the attributes.
    await page.goto(`${base}#/player/${a}`);
    const attributes = page.getByRole('table', { name: /attributes/ });
    await attributes.getByRole('row', { name: /^country DE$/ }).waitFor();
    await attributes.getByRole('row', { name: /^team red$/ }).waitFor();
    expect(errors).toEqual([]);
  });
});
