/** The servers a suite may need that this machine may not run, by the setting that names them. */
const SERVERS = { EVENTSTORE_URL: 'KurrentDB', MONGO_URL: 'MongoDB' } as const;

/**
 * Declares the tests of a suite that needs a server (KurrentDB at EVENTSTORE_URL, MongoDB at
 * MONGO_URL): with the setting, `declare` runs with its URL; without it, each named test is
 * reported as skipped under a name that says why, never as passed.
 */
export function withServer(
  setting: keyof typeof SERVERS,
  suite: string,
  tests: readonly string[],
  declare: (url: string) => void,
): void {
  const url = process.env[setting];
  if (url) return declare(url);
  // Skipped on purpose: without the server's URL there is nothing to run against (no KurrentDB or
  // MongoDB can run on this machine); each test is listed as skipped under a name saying so, never as passed.
  // prettier-ignore
  describe.skip(`${suite} (skipped: ${setting} is not set; no ${SERVERS[setting]} server on this machine)`, () => { // skipped: no server URL, no server here
    for (const name of tests) it(name, () => undefined);
  });
}
