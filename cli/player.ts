/**
 * `player export`: all of a player's data as one JSON document, read from the log; `player adjust`
 * and `player erase`: asked of the running service.
 */
import type { RunConfig } from '../shared/adapters/config/env';
import { catalogInForce } from '../command-api/publish-catalog/publish';
import { playerExport } from '../read-api/player-export/route';
import type { EventStore } from '../shared/adapters/event-store/port';
import { canonicalPlayerId } from '../domain/ids';
import { iso, UsageError, writeLine } from './output';
import { askServer, type ServerOptions } from './server';

/**
 * What GET /v1/admin/players/{playerId}/export answers, without the service. Exit 1 for a player
 * never registered, or erased (then saying when: the route answers 5003, but an operator asking
 * here is owed the difference).
 */
export async function exportPlayer(events: EventStore, id: string): Promise<number> {
  const playerId = canonicalPlayerId(id);
  if (!playerId) throw new UsageError(`player export: the playerId must be a UUID, got "${id}"`);
  // Players are registered under a published catalog: a log without one has none.
  const published = await catalogInForce(events, Date.now());
  const answer = published ? await playerExport(events, published.catalog, playerId, Date.now()) : null;
  if (!answer) {
    process.stderr.write(`no player ${playerId}\n`);
    return 1;
  }
  if ('erasedAt' in answer) {
    process.stderr.write(`player ${playerId} was erased at ${iso(answer.erasedAt)}: nothing of theirs to export\n`);
    return 1;
  }
  await writeLine(JSON.stringify(answer.exported, null, 2));
  return 0;
}

/** What POST /v1/admin/players/adjust answers. */
interface Adjusted {
  playerId: string;
  adjustmentUid: string;
  reason: string;
  keyName: string;
  points: number;
  deliverables: { uid: string; label: string; amount: number }[];
  levels: { uid: string; label: string; level: number }[];
}

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

/** `--deliverable <uid>=<amount>`, as the route's `{deliverable, amount}`. */
function deliverableOf(option: string): { deliverable: string; amount: string } {
  const match = /^([^=]+)=(-?\d+(?:\.\d+)?)$/.exec(option);
  if (!match) throw new UsageError(`player adjust: --deliverable takes <uid>=<amount>, got "${option}"`);
  return { deliverable: match[1], amount: match[2] };
}

/**
 * `player adjust`: a support adjustment through the running service (POST /v1/admin/players/adjust,
 * a Server key), so that its checks, its key name and its caches are the service's. One line: what changed.
 */
export async function adjustPlayer(
  config: RunConfig,
  options: ServerOptions & { playerId: string; reason?: string; points?: string; deliverables: string[] },
): Promise<number> {
  if (!options.reason) throw new UsageError('player adjust: give --reason <text>, why (kept with the adjustment)');
  if (options.points !== undefined && !/^-?\d+(\.\d+)?$/.test(options.points))
    throw new UsageError(`player adjust: --points takes a number, got "${options.points}"`);
  const deliverables = options.deliverables.map(deliverableOf);
  const a = await askServer<Adjusted>('player adjust', config, options, {
    method: 'POST',
    path: '/v1/admin/players/adjust',
    body: {
      playerId: options.playerId,
      reason: options.reason,
      ...(options.points === undefined ? {} : { points: options.points }),
      ...(deliverables.length ? { deliverables } : {}),
    },
  });
  const changes = [
    ...(a.points !== 0 ? [`points ${signed(a.points)}`] : []),
    ...a.deliverables.map((d) => `${d.uid} ${signed(d.amount)}`),
    ...a.levels.map((l) => `level ${l.level} reached`),
  ];
  await writeLine(`adjustment ${a.adjustmentUid} of ${a.playerId} by ${a.keyName}: ${changes.join(', ')}`);
  return 0;
}

/** `player erase`: the player's erasure through the running service (POST /v1/admin/players/erase, a Server key). */
export async function erasePlayer(config: RunConfig, options: ServerOptions & { playerId: string }): Promise<number> {
  const e = await askServer<{ playerId: string; erasedAt: number }>('player erase', config, options, {
    method: 'POST',
    path: '/v1/admin/players/erase',
    body: { playerId: options.playerId },
  });
  await writeLine(`player ${e.playerId} erased at ${iso(e.erasedAt)}`);
  return 0;
}
