import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { WrongExpectedVersionError } from '../shared/adapters/event-store/port';
import { parseCatalog } from '../shared/domain/catalog/load';
import { ok } from '../shared/domain/result';
import { idempotencyStream } from '../shared/domain/streams';
import { commandDepsFor } from '../test/support/command-deps';
import { MAX_ATTEMPTS, runCommand } from './command';
import { decision } from './decision';
import { replyOf } from './reply';

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
