import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'yaml';
import { SIMULATE_MAX_BODY_BYTES } from '../../read-api/audit/routes';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { MAX_ENTRIES } from '../../domain/catalog/limits';
import { auditor, client, mobile, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-train, identifier: train, points: 3 }
badges:
  - { uid: b-veteran, label: Veteran, type: OneTimeOnly, points: 0, conditions: [{ action: train, challenge: { times: 2 } }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;

/** The catalog as a simulation's body carries it: the file's format, as JSON. */
const catalogJson = (yaml = CATALOG) => parse(yaml, { version: '1.2' }) as Record<string, unknown>;

let t: TestService;
const earner = randomUUID();
const trainer = randomUUID();

beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
  const act = async (playerId: string, name: string) =>
    expect(
      (await t.http.post('/v1/action/process').set(server).send({ playerId, name, referenceId: randomUUID() })).body
        .code,
    ).toBe(200);
  await act(earner, 'earn');
  await act(earner, 'earn');
  await act(trainer, 'train');
  await act(trainer, 'train');
});
afterAll(() => t.close());

const simulate = (body: unknown, headers: Record<string, string> = server) =>
  t.http
    .post('/v1/audit/simulate')
    .set(headers)
    .send(body as object);

describe('POST /v1/audit/simulate', () => {
  it('answers what a draft would change, for Server and Auditor keys, and writes nothing', async () => {
    const head = await t.service.events.headPosition();
    const doubled = catalogJson(CATALOG.replace('identifier: earn, points: 10', 'identifier: earn, points: 20'));
    for (const headers of [server, auditor]) {
      const res = await simulate({ catalog: doubled }, headers);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        actionsRedecided: 4,
        playersAffected: 1,
        totals: { pointsBefore: 26, pointsAfter: 46, badgesGained: 0, badgesLost: 0, levelsChanged: 0 },
        players: [
          {
            playerId: earner,
            pointsBefore: 20,
            pointsAfter: 40,
            levelBefore: 2,
            levelAfter: 2,
            badgesGained: [],
            badgesLost: [],
            balances: [],
          },
        ],
        boards: [
          {
            leaderboardUid: 'lb-all',
            before: [
              { rank: 1, userId: earner, points: 20 },
              { rank: 2, userId: trainer, points: 6 },
            ],
            after: [
              { rank: 1, userId: earner, points: 40 },
              { rank: 2, userId: trainer, points: 6 },
            ],
          },
        ],
        problems: [],
      });
    }
    expect(await t.service.events.headPosition()).toBe(head);
  });

  it("takes the draft as the file's text (yaml) as well, with the same answer", async () => {
    const doubled = CATALOG.replace('identifier: earn, points: 10', 'identifier: earn, points: 20');
    const [asYaml, asJson] = await Promise.all([
      simulate({ yaml: doubled }),
      simulate({ catalog: catalogJson(doubled) }),
    ]);
    expect(asYaml.status).toBe(200);
    expect(asYaml.body.data).toEqual(asJson.body.data);
    expect(asYaml.body.data).toMatchObject({ playersAffected: 1, totals: { pointsBefore: 26, pointsAfter: 46 } });
  });

  it('limits the run to the players given (unknown ones ignored) and the list to top', async () => {
    const harder = catalogJson(
      CATALOG.replace('challenge: { times: 2 }', 'challenge: { times: 3 }').replace('target: 20', 'target: 25'),
    );
    const all = (await simulate({ catalog: harder })).body.data;
    expect(all.playersAffected).toBe(2);
    expect(all.players.map((p: { playerId: string }) => p.playerId).sort()).toEqual([earner, trainer].sort());
    const one = (await simulate({ catalog: harder, players: [trainer.toUpperCase(), randomUUID()] })).body.data;
    expect(one.players).toEqual([expect.objectContaining({ playerId: trainer, badgesLost: ['b-veteran'] })]);
    const top = (await simulate({ catalog: harder, top: 1 })).body.data;
    // No points change: equal changes are listed by playerId.
    expect(top).toMatchObject({
      playersAffected: 2,
      players: [expect.objectContaining({ playerId: [earner, trainer].sort()[0] })],
    });
    expect(all.players.find((p: { playerId: string }) => p.playerId === earner)).toMatchObject({
      levelBefore: 2,
      levelAfter: 1,
    });
  });

  it('refuses an invalid catalog with 1001, one line per problem', async () => {
    const broken = catalogJson(
      CATALOG.replace('deliverable: gold, amount: 100', 'deliverable: silver, amount: 100').replace(
        'level: 2, target: 20',
        'level: 2, target: -5',
      ),
    );
    const res = await simulate({ catalog: broken });
    expect([res.status, res.body.code]).toEqual([400, 1001]);
    const lines = (res.body.data as string).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.some((l) => l.includes('silver'))).toBe(true);
    expect(lines.some((l) => l.startsWith('levels[1]'))).toBe(true);
  });

  it('refuses a malformed body: 1001 for catalog and top, 1002 for a player that is no UUID', async () => {
    for (const body of [
      {},
      { catalog: [] },
      { catalog: catalogJson(), top: 0 },
      { catalog: catalogJson(), top: 1001 },
      { catalog: catalogJson(), players: 'x' },
      { catalog: catalogJson(), yaml: CATALOG },
      { yaml: 'actions: [' },
    ]) {
      expect([body, (await simulate(body)).body.code]).toEqual([body, 1001]);
    }
    expect((await simulate({ catalog: catalogJson(), players: ['not-a-uuid'] })).body.code).toBe(1002);
  });

  it('is for operators: 4003 for Mobile and Client keys, 4001 without a key', async () => {
    for (const headers of [mobile, client])
      expect([
        (await simulate({ catalog: catalogJson() }, headers)).status,
        (await simulate({ catalog: catalogJson() }, headers)).body.code,
      ]).toEqual([403, 4003]);
    expect((await simulate({ catalog: catalogJson() }, {})).body.code).toBe(4001);
  });

  it('reads bodies up to 4 MiB, more than other routes take, and refuses a larger one with 413', async () => {
    const body = (bytes: number) => JSON.stringify({ catalog: catalogJson(), pad: 'x'.repeat(bytes) });
    const large = await t.http
      .post('/v1/audit/simulate')
      .set(server)
      .set('Content-Type', 'application/json')
      .send(body(1024 * 1024));
    expect([large.status, large.body.code]).toEqual([200, 200]);
    // The same body on another route is over its 64 KiB.
    const elsewhere = await t.http
      .post('/v1/audit/verify')
      .set(server)
      .set('Content-Type', 'application/json')
      .send(body(1024 * 1024));
    expect([elsewhere.status, elsewhere.body.code]).toEqual([413, 1001]);
    const over = await t.http
      .post('/v1/audit/simulate')
      .set(server)
      .set('Content-Type', 'application/json')
      .send(body(SIMULATE_MAX_BODY_BYTES));
    expect([over.status, over.body]).toEqual([
      413,
      { code: 1001, data: expect.stringContaining(String(SIMULATE_MAX_BODY_BYTES)) },
    ]);
  });
});

/**
 * Holds a simulation at its first read of the log (a replay's reads are the only ones without
 * metadata) until released: a simulation caught running.
 */
function holdReplay(events: EventStore): { started: Promise<void>; release(): void } {
  const readAll = events.readAll.bind(events);
  let reached!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  events.readAll = async (options) => {
    if (options?.withoutMetadata) {
      reached();
      await released;
    }
    return readAll(options);
  };
  return {
    started,
    release() {
      release();
      delete (events as Partial<EventStore>).readAll;
    },
  };
}

/** The count of simulations that ended so, from /metrics. */
async function simulations(service: TestService, outcome: string): Promise<number> {
  const text = (await service.http.get('/metrics').set(server)).text;
  const line = text.split('\n').find((l) => l.startsWith(`simulations_total{outcome="${outcome}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('POST /v1/audit/simulate: what one simulation may take', () => {
  it("refuses a draft over a section's limit with 1001, naming the section and the limit", async () => {
    const draft = catalogJson();
    draft.leaderboards = Array.from({ length: MAX_ENTRIES.leaderboards + 1 }, (_, i) => ({
      uid: `lb-${i}`,
      label: `Board ${i}`,
      type: 0,
    }));
    const res = await simulate({ catalog: draft });
    expect([res.status, res.body]).toEqual([
      400,
      {
        code: 1001,
        data: `leaderboards: at most ${MAX_ENTRIES.leaderboards} entries (the catalog's limit), got ${MAX_ENTRIES.leaderboards + 1}`,
      },
    ]);
  });

  it('runs one at a time: another meanwhile answers 9032 (HTTP 409), and the next once it has answered is run', async () => {
    const held = holdReplay(t.service.events);
    const first = simulate({ catalog: catalogJson() }).then((res) => res);
    await held.started;
    const second = await simulate({ catalog: catalogJson() }, auditor);
    expect([second.status, second.body.code]).toEqual([409, 9032]);
    expect(await simulations(t, 'busy')).toBe(1);
    held.release();
    expect((await first).body.code).toBe(200);
    expect((await simulate({ catalog: catalogJson() })).body.code).toBe(200);
  });

  it('goes on when its client leaves: GET /v1/audit/simulate answers its progress, then its report; the next is run', async () => {
    const listening = await t.service.listen(0);
    const held = holdReplay(t.service.events);
    const body = JSON.stringify({ catalog: catalogJson() });
    const request = http.request({
      port: (listening.address() as AddressInfo).port,
      method: 'POST',
      path: '/v1/audit/simulate',
      headers: { ...server, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    request.on('error', () => undefined);
    request.end(body);
    await held.started;
    const simulation = () => t.http.get('/v1/audit/simulate').set(auditor);
    const running = (await simulation()).body.data;
    expect(running).toMatchObject({ simulationUid: expect.any(String), status: 'Running', result: null, error: null });
    request.destroy();
    // Once the service has seen the connection close, the replay reads on.
    await eventually(
      () => new Promise((resolve) => listening.getConnections((error, count) => resolve(!error && count === 0))),
      30_000,
      20,
    );
    held.release();
    const done = await eventually(
      async () => {
        const read = (await simulation()).body.data;
        return read.status === 'Completed' && read;
      },
      30_000,
      20,
    );
    const answered = await simulate({ catalog: catalogJson() });
    expect(done).toMatchObject({ simulationUid: running.simulationUid, endedAt: expect.any(Number), error: null });
    // The same report as a request that stayed gets.
    expect(done.result).toEqual(answered.body.data);
    expect(done.progress).toMatchObject({
      eventsReplayed: expect.any(Number),
      head: await t.service.events.headPosition(),
    });
    expect(done.progress.eventsReplayed).toBeGreaterThan(0);
    listening.close();
  });

  it('stops with 9033 once its heap passes SIMULATE_MAX_HEAP_MB, which GET /v1/audit/simulate then says (9036 before any)', async () => {
    const small = await startTestService({ catalogYaml: CATALOG, env: { SIMULATE_MAX_HEAP_MB: '1' } });
    try {
      const none = await small.http.get('/v1/audit/simulate').set(server);
      expect([none.status, none.body]).toEqual([400, { code: 9036, data: 'No simulation has run' }]);
      const res = await small.http.post('/v1/audit/simulate').set(server).send({ catalog: catalogJson() });
      expect([res.status, res.body]).toEqual([
        400,
        {
          code: 9033,
          data: 'The simulation was stopped before its answer: its heap passed SIMULATE_MAX_HEAP_MB; simulate some players (players) or a smaller draft',
        },
      ]);
      expect(await simulations(small, 'memory')).toBe(1);
      expect((await small.http.get('/v1/audit/simulate').set(server)).body.data).toMatchObject({
        status: 'Failed',
        result: null,
        error: 'its heap passed SIMULATE_MAX_HEAP_MB; simulate some players (players) or a smaller draft',
      });
    } finally {
      await small.close();
    }
  });
});
