/**
 * A process of the deployment that holds players' keys in its cache and never reads the log's
 * tail by itself (as a read role whose read models a projector writes elsewhere): each line
 * `read` on stdin reads the whole embedded log through the service's own key cache and codec
 * (app/adapters.ts) and answers one line, the events' data as JSON. Run with DATA_DIR set.
 */
import path from 'node:path';
import readline from 'node:readline';
import { openPlayerKeys, withPersonalData } from '../../app/adapters';
import { readRunConfig } from '../../shared/adapters/config/env';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';

async function main(): Promise<void> {
  const config = readRunConfig();
  const log = new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), { readonly: true });
  const events = withPersonalData(log, await openPlayerKeys(config));
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line !== 'read') continue;
    const all = await events.readAll();
    process.stdout.write(`${JSON.stringify(all.map((e) => e.data))}\n`);
  }
  await events.close();
}

void main();
