/**
 * The catalog editor in a real browser (Debian's chromium, driven by playwright-core): a Server key
 * edits a rule, validates, tries it on the recorded history, publishes it, and the next action is
 * decided under the new version; the versions list compares and reverts; an Auditor key reads it all
 * and changes nothing.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';

const STEP_TIMEOUT_MS = 15_000;
jest.setTimeout(180_000);

const CATALOG = `
version: 1
settings: { timezone: UTC }
actions:
  - { uid: act-earn, identifier: earn, points: 10 }
`;

describeInBrowser("the console's catalog editor", () => {
  let t: TestService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestService({ catalogYaml: CATALOG });
    const listening = await t.service.listen(0);
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}${CONSOLE_PATH}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const earn = async (playerId: string) => {
    const res = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'earn', playerId, referenceId: randomUUID() });
    expect(res.body.code).toBe(200);
  };
  const pointsOf = async (playerId: string): Promise<number> =>
    (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data.points;

  async function versionsPage(key: string): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}#/catalog/versions`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
    return { page, errors };
  }

  it('edits a rule, validates, tries it on history, publishes, and the next action is decided under it', async () => {
    const ada = randomUUID();
    await earn(ada);
    const { page, errors } = await versionsPage(KEYS.server);
    const draft = page.locator('#catalog-draft');
    expect(await draft.inputValue()).toContain('identifier: earn');

    // A mistake first: every problem at its path, nothing published.
    await draft.fill((await draft.inputValue()).replace('points: 10', 'points: -5'));
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByText('The draft has a problem.').waitFor();
    await page.locator('.problems code', { hasText: 'actions' }).first().waitFor();

    await draft.fill((await draft.inputValue()).replace('points: -5', 'points: 25'));
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByText('The draft is valid.').waitFor();

    await page.getByRole('button', { name: 'Diff against the version in force' }).click();
    await page.getByRole('cell', { name: 'act-earn' }).waitFor();
    await page.getByRole('cell', { name: 'points' }).waitFor();

    await page.getByRole('button', { name: 'Try on history' }).click();
    await page.getByText(/^1 player affected/).waitFor();
    await page.getByText('10 → 25').first().waitFor();

    await page.getByLabel('Comment').fill('Double the points of earn');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 2, in force now.').waitFor();
    // The page shows itself again: version 2 in force, by the key that published it, with its comment.
    await page.getByText(/^In force: version 2, published .* by backend \(“Double the points of earn”\)\.$/).waitFor();
    await page.getByRole('cell', { name: 'Double the points of earn' }).waitFor();

    // The next action is decided under version 2, without a restart.
    await earn(ada);
    expect(await pointsOf(ada)).toBe(35);
    expect(errors).toEqual([]);
  });

  it('compares two versions and reverts to an earlier one', async () => {
    const { page, errors } = await versionsPage(KEYS.server);
    await page.getByLabel('Version', { exact: true }).selectOption('1');
    await page.getByLabel('Compared with').selectOption('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('cell', { name: 'act-earn' }).waitFor();

    await page.getByRole('button', { name: 'Revert to version 1' }).click();
    await page.getByText("Reverted: version 3 has version 1's rules.").waitFor();
    await page.getByText(/^In force: version 3, /).waitFor();
    const bea = randomUUID();
    await earn(bea);
    expect(await pointsOf(bea)).toBe(10);
    expect(errors).toEqual([]);
  });

  it('shows an Auditor key everything, read-only: no publication, no revert', async () => {
    const { page, errors } = await versionsPage(KEYS.auditor);
    await page.getByRole('heading', { name: 'The catalog in force' }).waitFor();
    expect(await page.locator('#catalog-draft').getAttribute('readonly')).toBe('');
    await page.getByRole('cell', { name: 'Double the points of earn' }).waitFor();
    expect(await page.getByRole('button', { name: 'Publish', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Revert/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
