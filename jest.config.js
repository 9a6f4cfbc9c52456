/**
 * Two projects, one run (`npm test`, README "The two commands"):
 * - embedded: every suite, the service on its embedded adapters (no server needed);
 * - redis: the suites that need the shared Redis (REDIS_URL, default redis://127.0.0.1:6379):
 *   the Redis adapters' own suites (the standings' included), the leaderboards' property test with
 *   standings in Redis, and the HTTP, crash (league-crash and season-crash too), concurrency and
 *   deployment suites a second time with the service's jobs and rate limits on Redis, each service
 *   under a key prefix of its own. Its global setup fails the run at once, in one line, when Redis does not
 *   answer. `npx jest --selectProjects embedded` runs without Redis.
 * @type {import('jest').Config}
 */
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // sdk/ is ESM and imports `./errors.ts`, which its compiler rewrites to `./errors.js`: the source is what runs here.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

/** Suites that talk to the shared Redis themselves. */
const REDIS_ADAPTER_SUITES = [
  '<rootDir>/test/jobs.bullmq.test.ts',
  '<rootDir>/test/rate-limit.redis.test.ts',
  '<rootDir>/test/standings.redis.test.ts',
];

module.exports = {
  testTimeout: 30000,
  // One worker per core, not jest's cores - 1: most suites wait on the services and CLIs they start
  // in child processes, so two workers on 2 cores halve the run (about 1,500 s -> 740 s under load).
  maxWorkers: '100%',
  projects: [
    {
      ...common,
      displayName: 'embedded',
      testMatch: ['<rootDir>/**/*.test.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, ...REDIS_ADAPTER_SUITES],
    },
    {
      ...common,
      displayName: 'redis',
      testMatch: [
        ...REDIS_ADAPTER_SUITES,
        '<rootDir>/test/http/*.test.ts',
        '<rootDir>/test/crash.test.ts',
        '<rootDir>/test/league-crash.test.ts',
        '<rootDir>/test/season-crash.test.ts',
        '<rootDir>/test/concurrency.test.ts',
        '<rootDir>/test/deployment.test.ts',
        // Once more with the standings in Redis, as MongoDB's are kept.
        '<rootDir>/test/leaderboards.property.test.ts',
      ],
      globalSetup: '<rootDir>/test/support/require-redis.ts',
      // Read by test/support/backing.ts: services started by these suites use Redis.
      globals: { SERVICES_ON_REDIS: true },
    },
  ],
};
