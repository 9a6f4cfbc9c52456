/** `events`: a stream, or the whole log, readable or as JSON. */
import { playerStream } from '../domain/streams';
import { auditEvent, summarizeEvent } from '../read-api/audit/events';
import { feedRecord, matches, type FeedFilter } from '../read-api/feed/records';
import type { EventStore, RecordedEvent } from '../shared/adapters/event-store/port';
import { canonicalPlayerId } from '../domain/ids';
import { iso, UsageError, writeLine } from './output';
import { progressReporter } from './progress';

const PAGE_SIZE = 1000;

export interface EventsOptions {
  player?: string;
  stream?: string;
  /** First stream revision shown. */
  from?: number;
  json: boolean;
}

/** `events`: one stream, readable or as NDJSON. Exit 1 when the stream has no events. */
export async function showEvents(events: EventStore, options: EventsOptions): Promise<number> {
  if ((options.player === undefined) === (options.stream === undefined))
    throw new UsageError('events: give exactly one of --player <id> or --stream <name>');
  let stream = options.stream!;
  if (options.player !== undefined) {
    const playerId = canonicalPlayerId(options.player);
    if (!playerId) throw new UsageError(`events: --player must be a UUID, got "${options.player}"`);
    stream = playerStream(playerId);
  }
  let revision = options.from ?? 0;
  let shownAny = false;
  for (;;) {
    const page = await events.readStream(stream, { fromRevision: revision, maxCount: PAGE_SIZE });
    for (const e of page) await writeLine(options.json ? JSON.stringify(auditEvent(e)) : eventLine(e));
    shownAny ||= page.length > 0;
    if (page.length < PAGE_SIZE) break;
    revision = page[page.length - 1].revision + 1;
  }
  if (shownAny) return 0;
  process.stderr.write(`no events in ${stream}${options.from ? ` from revision ${options.from}` : ''}\n`);
  return 1;
}

/** time, stream@revision, position, type, who and which request, then what it says. */
export function eventLine(e: RecordedEvent): string {
  return `${iso(e.createdAt)}  ${e.streamName}@${e.revision}  #${e.position}  ${e.type}  key=${e.metadata.keyName} correlation=${e.metadata.correlationId}  ${summarizeEvent(e)}`;
}

export interface ExportOptions {
  /** Export events after this position (exclusive). */
  from?: number;
  filter: FeedFilter;
}

/** `export`: the global log as NDJSON, one page in memory at a time: the event feed's records. */
export async function exportEvents(events: EventStore, options: ExportOptions): Promise<number> {
  let position = options.from ?? 0;
  const progress = progressReporter({ label: 'export', from: position, to: await events.headPosition() });
  let read = 0;
  for (;;) {
    const page = await events.readAll({ fromPosition: position, maxCount: PAGE_SIZE });
    for (const e of page) if (matches(e, options.filter)) await writeLine(JSON.stringify(feedRecord(e)));
    read += page.length;
    if (page.length > 0) position = page[page.length - 1].position;
    progress.update(read, position);
    if (page.length < PAGE_SIZE) break;
  }
  progress.done();
  return 0;
}
