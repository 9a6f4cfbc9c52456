import { readRunConfig } from './config/env';
import { createLogger } from './logging/logger';
import { ROLES, type Role } from './roles';
import { ConfigurationError, startService } from './service';

/**
 * `npm start`: the whole service in one process (decisions.md §1); `npm run start:command`,
 * `start:read` and `start:projector` run one role each.
 */
async function main(): Promise<void> {
  const role = (process.argv[2] ?? 'all') as Role;
  if (!ROLES.includes(role)) {
    console.error(`unknown role "${role}": use one of ${ROLES.join(', ')}`);
    process.exit(2);
  }
  let config;
  try {
    config = readRunConfig();
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const log = createLogger(config.logLevel);
  try {
    const service = await startService({ config, log, role, announce: (line) => console.log(line) });
    await service.listen();
    console.log(`Gamification service (${role}) listening on http://localhost:${config.port} (data in ${config.dataDir}, catalog ${config.catalogFile})`);
    // Graceful: stop taking requests, let the ones in flight finish, close subscriptions and stores.
    const stop = async () => {
      log.info({ role }, 'shutting down');
      await service.close();
      process.exit(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  } catch (e) {
    if (e instanceof ConfigurationError) {
      console.error('Cannot start: fix these problems and start again:');
      for (const p of e.problems) console.error(`  ${p}`);
      process.exit(1);
    }
    throw e;
  }
}

void main();
