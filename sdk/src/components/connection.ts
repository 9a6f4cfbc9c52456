/**
 * What the elements of one page share per service and key: one client, and one source of updates.
 * A key that may read the event feed (Server, Auditor) gets one live subscription for every element
 * (a key holds a handful of live streams at once); any other key, a browser's Client key above all,
 * gets none, and each element reads again on its refresh interval.
 */
import { createClient, type GamificationClient } from '../client.ts';
import { GamificationError } from '../errors.ts';
import type { FeedEvent } from '../feed.ts';

export interface ConnectionSettings {
  baseUrl: string;
  key: string;
  /** The player's token (X-Player-Token) a Client key reads that player's views with. */
  playerToken: string | null;
  /** X-Tenant-Domain: a Client key names the page's host, which same-origin GETs do not send as Origin. */
  tenantDomain: string | null;
}

/** Told of each event of the log a player's stream records, while the feed can be read. */
export type EventListener = (event: FeedEvent) => void;

export interface Connection {
  client: GamificationClient;
  /**
   * Listens to the feed's player events; answers whether the key may read the feed (false: the
   * element reads again on its interval instead). The returned function stops listening.
   */
  listen(listener: EventListener): Promise<{ live: boolean; stop: () => void }>;
}

const connections = new Map<string, Connection>();

export function connectionOf(settings: ConnectionSettings): Connection {
  const id = JSON.stringify([settings.baseUrl, settings.key, settings.playerToken, settings.tenantDomain]);
  let connection = connections.get(id);
  if (!connection) {
    connection = open(settings);
    connections.set(id, connection);
  }
  return connection;
}

function open(settings: ConnectionSettings): Connection {
  const client = createClient({
    baseUrl: settings.baseUrl,
    key: settings.key,
    ...(settings.playerToken ? { playerToken: settings.playerToken } : {}),
    ...(settings.tenantDomain ? { tenantDomain: settings.tenantDomain } : {}),
  });
  const listeners = new Set<EventListener>();
  let subscription: { close(): void } | null = null;
  /** Settles once it is known whether the key may read the feed: true when subscribed. */
  let live: Promise<boolean> | null = null;

  const subscribe = async (): Promise<boolean> => {
    let head: number;
    try {
      // From now on: the head of the log, not its start.
      head = (await client.feedEvents({ limit: '1' })).head;
    } catch (error) {
      // A key that may not read the feed (4003) is the common case in a browser: refresh on an interval.
      if (error instanceof GamificationError && error.code === 4003) return false;
      throw error;
    }
    subscription = client.feed.subscribe({ from: head, streams: ['player'] }, (event) => {
      for (const listener of listeners) listener(event);
    });
    // Every element left while the head was read: nobody listens.
    if (listeners.size === 0) {
      subscription.close();
      subscription = null;
      live = null;
    }
    return true;
  };

  return {
    client,
    async listen(listener) {
      listeners.add(listener);
      live ??= subscribe().catch(() => {
        // The service was away: try again with the next element, and refresh on an interval meanwhile.
        live = null;
        return false;
      });
      const stop = () => {
        listeners.delete(listener);
        if (listeners.size === 0 && subscription) {
          subscription.close();
          subscription = null;
          live = null;
        }
      };
      return { live: await live, stop };
    },
  };
}
