/**
 * The player page's support actions in a real browser (Debian's chromium, driven by playwright-core):
 * a Server key adjusts, reverses and erases, each after a confirmation naming what will change;
 * other keys are told they need a Server key.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KEYS, server, startTestService, type TestService } from './support/service';

const STEP_TIMEOUT_MS = 15_000;
jest.setTimeout(120_000);

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
`;

describeInBrowser("the console's support actions", () => {
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

  const earn = async (playerId: string, referenceId = randomUUID()) => {
    const res = await t.http.post('/v1/action/process').set(server).send({ name: 'earn', playerId, referenceId });
    expect(res.body.code).toBe(200);
    return referenceId;
  };
  const profile = async (playerId: string) =>
    (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body;

  async function playerPage(key: string, playerId: string): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}#/player/${playerId}`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Support' }).waitFor();
    return { page, errors };
  }

  it('adjusts after a confirmation naming the changes, then shows the player again with them', async () => {
    const ada = randomUUID();
    await earn(ada);
    const { page, errors } = await playerPage(KEYS.server, ada);
    await page.getByLabel('Reason').fill('Ticket 9: missing gold');
    await page.getByLabel('Points', { exact: true }).fill('-3');
    await page.getByLabel('Deliverables').fill('gold=25');
    await page.getByRole('button', { name: 'Adjust…' }).click();
    await page
      .getByText(`This will change ${ada}’s holdings: points -3, gold +25, for “Ticket 9: missing gold”.`)
      .waitFor();
    // Nothing is sent before the confirmation.
    expect((await profile(ada)).data.points).toBe(10);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(/^Adjusted \([0-9a-f]{32}\)/).waitFor();
    await page.getByRole('link', { name: 'Trace of the adjustment' }).waitFor();
    expect((await profile(ada)).data).toMatchObject({ points: 7, balances: [{ deliverableUid: 'gold', amount: 125 }] });
    // The page shown again: the new points, and the adjustment in the timeline with its reason and key.
    await page.locator('dd', { hasText: /^7$/ }).first().waitFor();
    await page.getByText('Adjusted by key backend: “Ticket 9: missing gold”').waitFor();

    // More than the player holds: the service's refusal is shown, nothing changes.
    await page.getByLabel('Reason').fill('Too much');
    await page.getByLabel('Points', { exact: true }).fill('-8');
    await page.getByRole('button', { name: 'Adjust…' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('alert').filter({ hasText: 'below zero' }).waitFor();
    expect((await profile(ada)).data.points).toBe(7);
    expect(errors).toEqual([]);
  });

  it('reverses an action and erases the player after their confirmations; Cancel sends nothing', async () => {
    const ada = randomUUID();
    const referenceId = await earn(ada);
    await earn(ada);
    const { page, errors } = await playerPage(KEYS.server, ada);
    await page.getByLabel('ReferenceId').fill(referenceId);
    await page.getByLabel('Action name').fill('earn');
    await page.getByRole('button', { name: 'Reverse…' }).click();
    await page.getByText(`This will reverse earn ${referenceId} of ${ada}`).waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Reversed ${referenceId}.`).waitFor();
    expect((await profile(ada)).data.points).toBe(10);

    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByText(`This will erase ${ada} (${ada}) for good`).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await profile(ada)).code).toBe(200);
    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Erased ${ada}.`).waitFor();
    expect((await profile(ada)).code).toBe(5003);
    expect(errors).toEqual([]);
  });

  it('tells an Auditor key that support actions need a Server key', async () => {
    const ada = randomUUID();
    await earn(ada);
    const { page } = await playerPage(KEYS.auditor, ada);
    await page.getByText('Adjusting, reversing and erasing need a Server key.').waitFor();
    expect(await page.getByRole('button', { name: 'Adjust…' }).count()).toBe(0);
  });
});
