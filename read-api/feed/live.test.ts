/**
 * The live feed polls the log while its client waits: a client that stays for hours must not
 * leave something behind at every poll.
 */
import { getEventListeners } from 'node:events';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import type { AnyRoute, LiveRoute } from '../../shared/adapters/http/route';
import { feedRoutes } from './routes';
import { eventually } from '../../test/support/process';

it('keeps at most one abort listener on the request, however many times it has polled an idle log', async () => {
  const events = new SqliteEventStore(':memory:');
  let polls = 0;
  const readAll = events.readAll.bind(events);
  jest.spyOn(events, 'readAll').mockImplementation((options) => (polls++, readAll(options)));
  const live = feedRoutes({ events }).find((r: AnyRoute) => 'live' in r) as LiveRoute<unknown>;
  const client = new AbortController();
  const messages = live.live({ after: 0, filter: {} }, {} as never, client.signal)[Symbol.asyncIterator]();
  const ended = messages.next();
  let listeners: number;
  try {
    await eventually(() => polls >= 6, 30_000, 50);
    listeners = getEventListeners(client.signal, 'abort').length;
  } finally {
    client.abort();
  }
  expect(await ended).toEqual({ done: true, value: undefined });
  await events.close();
  expect(polls).toBeGreaterThanOrEqual(6);
  expect(listeners).toBeLessThanOrEqual(1);
  expect(getEventListeners(client.signal, 'abort')).toHaveLength(0);
});
