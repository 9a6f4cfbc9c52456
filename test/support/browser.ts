/**
 * The real browser of the browser tests: Debian's chromium (`.ci/run` installs it), driven by
 * playwright-core, never a downloaded browser.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/**
 * `describe` where the browser is installed; elsewhere (a machine where it cannot be installed)
 * `describe.skip`, so the suite is reported as skipped, never as passed.
 */
export const describeInBrowser = fs.existsSync(CHROMIUM) ? describe : describe.skip;

/**
 * Headless chromium, as the machine's probe runs it: without its background networking, whose
 * connections this closed network refuses. `hostRules`: a --host-resolver-rules value.
 */
export function launchChromium(hostRules?: string): Promise<Browser> {
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: hostRules ? [...args, `--host-resolver-rules=${hostRules}`] : args,
  });
}
