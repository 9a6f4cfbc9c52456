/**
 * The live event feed (GET /v1/feed/live, Server-Sent Events) as a subscription that outlives its
 * connections: after a drop (the service restarts, a proxy times out) it connects again and goes
 * on after the last position it handed over, so no event is missed or given twice. The position
 * moves past an event once `onEvent` has handled it: one that throws gets it again after a reconnection.
 */
import { errorOfResponse, GamificationError } from './errors.ts';
import { backoffMs } from './retry.ts';

/** One record of the log, as GET /v1/feed/events lists them. */
export interface FeedEvent {
  /** The event's position in the global log: `from` to go on after it. */
  position: number;
  /** The event type (`ActionProcessed`, `BadgeAwarded`, ...). */
  type: string;
  /** The record: stream, type, data, metadata, position, recordedAt. */
  data: Record<string, unknown>;
}

export interface FeedFilter {
  /** Go on after this position (exclusive): the last one handled; default 0, the whole log. */
  from?: number;
  /** Only these event types; default all. */
  types?: readonly string[];
  /** Only these stream kinds (player, reference, provision, ...); default all. */
  streams?: readonly string[];
}

export interface SubscribeOptions {
  /** Told of each connection that dropped before it connects again (the subscription goes on). */
  onDrop?: (error: unknown) => void;
  /** Longest wait between two reconnections (default 5000 ms). */
  maxDelayMs?: number;
}

export interface Subscription {
  /** The last position handed to `onEvent` (or `from`). */
  readonly position: number;
  /** Settles when the subscription ends: on close(), or rejected with a GamificationError the service answered instead of the stream (a bad filter, a key that may not read the feed). */
  readonly done: Promise<void>;
  close(): void;
}

export interface FeedConnection {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

export function subscribe(
  connection: FeedConnection,
  filter: FeedFilter,
  onEvent: (event: FeedEvent) => void | Promise<void>,
  options: SubscribeOptions = {},
): Subscription {
  const stop = new AbortController();
  let position = filter.from ?? 0;
  const policy = { attempts: Infinity, totalMs: Infinity, baseDelayMs: 200, maxDelayMs: options.maxDelayMs ?? 5_000 };

  /** Whether the current connection got its stream. */
  let opened = false;
  /** Reads one connection to its end: answers the refusal to end the subscription with, or null to connect again. */
  const connect = async (): Promise<GamificationError | null> => {
    const query = new URLSearchParams({ after: String(position) });
    if (filter.types?.length) query.set('types', filter.types.join(','));
    if (filter.streams?.length) query.set('streams', filter.streams.join(','));
    const response = await connection.fetch(`${connection.baseUrl}/v1/feed/live?${query}`, {
      headers: { ...connection.headers, Accept: 'text/event-stream' },
      signal: stop.signal,
    });
    if (!response.ok) {
      const error = await errorOfResponse(response);
      // Only the service's being busy or away is waited out: any other refusal would be the same again.
      if (response.status !== 429 && response.status !== 503) return error;
      throw error;
    }
    if (!response.body) throw new GamificationError(0, 'The feed answered without a body', response.status);
    opened = true;
    for await (const message of serverSentEvents(response.body)) {
      if (message.id === undefined || message.data === undefined) continue;
      const event: FeedEvent = {
        position: Number(message.id),
        type: message.event ?? 'message',
        data: JSON.parse(message.data) as Record<string, unknown>,
      };
      await onEvent(event);
      position = event.position;
    }
    return null;
  };

  const run = async () => {
    for (let retry = 1; !stop.signal.aborted;) {
      opened = false;
      let refusal: GamificationError | null = null;
      try {
        refusal = await connect();
      } catch (error) {
        if (stop.signal.aborted) return;
        options.onDrop?.(error);
      }
      if (refusal) throw refusal;
      // A stream that was open starts the backoff over; one that could not open waits longer each time.
      retry = opened ? 1 : retry + 1;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, backoffMs(policy, retry, null, Math.random));
        stop.signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
      });
    }
  };

  const done = run();
  // The caller may never look at `done`: its rejection is theirs to see, not an unhandled one.
  done.catch(() => undefined);
  return {
    get position() {
      return position;
    },
    done,
    close: () => stop.abort(),
  };
}

interface Message {
  id?: string;
  event?: string;
  data?: string;
}

/** The messages of an event stream (the HTML standard's format, lines ending in LF or CRLF): fields up to each blank line; comments skipped. */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let message: Message = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, '');
        buffer = buffer.slice(end + 1);
        if (line === '') {
          yield message;
          message = {};
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
