/** `player export`: all of a player's data as one JSON document, read from the log. */
import { latestCatalog } from '../command-api/publish-catalog/publish';
import { playerExport } from '../read-api/player-export/route';
import type { EventStore } from '../shared/adapters/event-store/port';
import { canonicalPlayerId } from '../shared/domain/ids';
import { UsageError, writeLine } from './output';

/** What GET /v1/admin/players/{playerId}/export answers, without the service. Exit 1 for a player never registered. */
export async function exportPlayer(events: EventStore, id: string): Promise<number> {
  const playerId = canonicalPlayerId(id);
  if (!playerId) throw new UsageError(`player export: the playerId must be a UUID, got "${id}"`);
  // Players are registered under a published catalog: a log without one has none.
  const published = await latestCatalog(events);
  const exported = published ? await playerExport(events, published.catalog, playerId, Date.now()) : null;
  if (!exported) {
    process.stderr.write(`no player ${playerId}\n`);
    return 1;
  }
  await writeLine(JSON.stringify(exported, null, 2));
  return 0;
}
