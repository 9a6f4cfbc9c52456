import { readRunConfig } from './config/env';
import { createLogger } from './logging/logger';
import { ConfigurationError, startService } from './service';

/** `npm start`: the whole service in one process on the embedded defaults (decisions.md §1). */
async function main(): Promise<void> {
  const role = process.argv[2] ?? 'all';
  if (role !== 'all') {
    console.error(`role "${role}" needs EVENTSTORE_URL/MONGO_URL/REDIS_URL support, which this build does not have yet; use "all"`);
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
    const service = await startService({ config, log, announce: (line) => console.log(line) });
    await service.listen();
    console.log(`Gamification service listening on http://localhost:${config.port} (data in ${config.dataDir}, catalog ${config.catalogFile})`);
    const stop = async () => {
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
