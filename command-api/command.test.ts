import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { WrongExpectedVersionError } from '../shared/adapters/event-store/port';
import { parseCatalog } from '../domain/catalog/load';
import { ok } from '../domain/result';
import { idempotencyStream } from '../domain/streams';
import { commandDepsFor } from '../test/support/command-deps';
import { MAX_ATTEMPTS, runCommand, runUseCase } from './command';
import { eventAt, type UseCase } from './use-case';
import { decision } from './decision';
import { replyOf } from './http';

/** The pipeline against a stream that every other writer always reaches first. */
describe('runCommand when every append loses the race', () => {
  const parsed = parseCatalog('version: 1\n', 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const catalog = parsed.catalog;
  const metadata = { correlationId: 'c-1', causationId: 'c-1', keyName: 'test', catalogVersion: 1 };

  const stream = idempotencyStream('test', 'k-1');
  const start = { keyName: 'test', idempotencyKey: 'k-1', fingerprint: 'f', startedAt: 0 };

  async function contended() {
    const events = new SqliteEventStore(':memory:');
    const deps = commandDepsFor(events, catalog);
    jest
      .spyOn(events, 'appendToStreams')
      .mockImplementation(async (appends) =>
        Promise.reject(new WrongExpectedVersionError(appends[0].stream, 'no_stream', 0)),
      );
    let attempts = 0;
    const outcome = await runCommand(deps, metadata, async (read) => {
      attempts++;
      await read.stream(stream);
      return ok(decision('taken', [{ stream, events: [{ type: 'IdempotentRequestStarted', data: start }] }]));
    });
    await deps.jobs.close();
    await events.close();
    return { outcome, attempts };
  }

  it('gives up after MAX_ATTEMPTS with a conflict, not a refusal of the rules', async () => {
    const { outcome, attempts } = await contended();
    expect(attempts).toBe(MAX_ATTEMPTS);
    expect(outcome).toEqual({
      ok: false,
      failure: expect.objectContaining({ kind: 'conflict', attempts: MAX_ATTEMPTS }),
    });
  });

  it('is answered by the routes as "too many concurrent changes", a 503', async () => {
    const { outcome } = await contended();
    expect(replyOf(outcome, (answer) => answer)).toEqual({
      ok: false,
      failure: { code: 503, message: 'Too many concurrent changes; retry later' },
    });
  });
});

/** A job is scheduled before its append (a crash between them loses no job), and one already due again after it. */
describe('runCommand with jobs', () => {
  const parsed = parseCatalog('version: 1\n', 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const metadata = { correlationId: 'c-2', causationId: 'c-2', keyName: 'test', catalogVersion: 1 };
  const stream = idempotencyStream('test', 'k-2');
  const start = { keyName: 'test', idempotencyKey: 'k-2', fingerprint: 'f', startedAt: 0 };

  /** What happened, in order: each schedule of the job and the append. */
  async function steps(runAt: number, append: 'lands' | 'fails') {
    const events = new SqliteEventStore(':memory:');
    const deps = { ...commandDepsFor(events, parsed.ok ? parsed.catalog : (undefined as never)), now: () => 1_000 };
    const seen: string[] = [];
    jest.spyOn(deps.jobs, 'schedule').mockImplementation(async (_type, id) => void seen.push(`schedule ${id}`));
    const appendToStreams = events.appendToStreams.bind(events);
    jest.spyOn(events, 'appendToStreams').mockImplementation(async (appends) => {
      seen.push('append');
      if (append === 'fails') throw new Error('disk on fire');
      return appendToStreams(appends);
    });
    const job = { type: 'expire-currency', id: 'job-1', runAt, payload: {} };
    const outcome = runCommand(deps, metadata, async (read) => {
      await read.stream(stream);
      return ok(decision('done', [{ stream, events: [{ type: 'IdempotentRequestStarted', data: start }] }], [job]));
    });
    if (append === 'fails') await expect(outcome).rejects.toThrow('disk on fire');
    else expect((await outcome).ok).toBe(true);
    await deps.jobs.close();
    await events.close();
    return seen;
  }

  it('schedules a job already due before the append and again once it landed', async () => {
    expect(await steps(1_000, 'lands')).toEqual(['schedule job-1', 'append', 'schedule job-1']);
    expect(await steps(0, 'lands')).toEqual(['schedule job-1', 'append', 'schedule job-1']);
  });

  it('schedules a job due later once, before the append; nothing after an append that failed', async () => {
    expect(await steps(1_001, 'lands')).toEqual(['schedule job-1', 'append']);
    expect(await steps(0, 'fails')).toEqual(['schedule job-1', 'append']);
  });
});

/** A decision and the catalog version its events name come from one reading of the catalog in force. */
describe('runUseCase while the catalog in force changes', () => {
  it('names, on the events it appends, the version whose catalog decided them', async () => {
    const events = new SqliteEventStore(':memory:');
    const zones = ['UTC', 'Europe/Berlin', 'Asia/Tokyo', 'America/New_York'];
    const catalogs = zones.map((timezone) => {
      const parsed = parseCatalog(`version: 1\nsettings: { timezone: ${timezone} }\n`, 'catalog.yaml');
      if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
      return parsed.catalog;
    });
    // Each reading finds a newer version in force, as at a schedule's boundary or after another process published.
    let readings = 0;
    const deps = {
      ...commandDepsFor(events, catalogs[0]),
      catalog: () => {
        const version = Math.min(readings++, catalogs.length - 1);
        return { version: version + 1, catalog: catalogs[version] };
      },
    };
    const stream = idempotencyStream('test', 'k-3');
    // The decision writes what its catalog says (its zone, here in an event's keyName).
    const noteZone: UseCase<null, null, null> = {
      // It reads the stream it writes (a record left there would be its only state; there is none).
      *read() {
        yield* eventAt(stream, 0);
        return null;
      },
      decide: (_cmd, _state, env) => {
        const started = {
          keyName: env.catalog.settings.timezone,
          idempotencyKey: 'k-3',
          fingerprint: 'f',
          startedAt: 0,
        };
        return ok(
          decision(null, [
            { stream, expectedRevision: 'any', events: [{ type: 'IdempotentRequestStarted', data: started }] },
          ]),
        );
      },
    };
    const origin = {
      metadata: { correlationId: 'c-3', causationId: 'c-3', keyName: 'test', catalogVersion: deps.catalog().version },
      idempotency: null,
    };
    expect((await runUseCase(deps, noteZone, null, origin)).ok).toBe(true);
    const [noted] = await events.readStream(stream);
    const version = noted.metadata.catalogVersion;
    expect((noted.data as { keyName: string }).keyName).toBe(zones[version - 1]);
    await deps.jobs.close();
    await events.close();
  });
});
