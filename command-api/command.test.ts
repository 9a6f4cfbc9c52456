import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { WrongExpectedVersionError } from '../shared/adapters/event-store/port';
import { parseCatalog } from '../shared/domain/catalog/load';
import { ok } from '../shared/domain/result';
import { idempotencyStream } from '../shared/domain/streams';
import { commandDepsFor } from '../test/support/command-deps';
import { MAX_ATTEMPTS, runCommand } from './command';
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
