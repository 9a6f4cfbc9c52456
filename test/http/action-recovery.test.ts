import { randomUUID } from 'node:crypto';
import * as stock from '../../command-api/limited-stock/stock-stream';
import { server, startTestService, type TestService } from '../support/service';

/** Players must be registered first here: process answers 5003 for unknown ones. */
const CATALOG = `
version: 1
settings: { autoRegisterPlayers: false }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 5 }] }
`;

let t: TestService;
let clock = Date.now();
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => clock });
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

let refs = 0;
const ref = () => `recovery-${Date.now()}-${++refs}`;
const registered = async () => {
  const playerId = randomUUID();
  expect((await t.http.post('/v1/player/create').set(server).send({ playerId })).body.code).toBe(200);
  return playerId;
};
const earn = (playerId: string, referenceId: string) => t.http.post('/v1/action/process').set(server).send({ name: 'earn', referenceId, playerId, timestamp: clock });
const points = async (playerId: string) => (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data.points;

describe('settings.autoRegisterPlayers: false', () => {
  it('answers 5003 for an unknown player and records nothing; a created player is processed', async () => {
    const stranger = randomUUID();
    const res = await earn(stranger, ref());
    expect([res.status, res.body]).toEqual([400, { code: 5003, data: 'PlayerId does not exist' }]);
    expect((await t.http.post('/v1/player/profile').set(server).send({ playerId: stranger })).body.code).toBe(5003);
    const playerId = await registered();
    expect((await earn(playerId, ref())).body.data.earnedPoints).toBe(10);
  });
});

describe('a crash between the reference and the player stream', () => {
  it('before the player append: the reservation blocks repeats, then recovery releases it and a retry is processed once', async () => {
    const playerId = await registered();
    const referenceId = ref();
    jest.spyOn(t.service.deps.players, 'append').mockRejectedValueOnce(new Error('process killed'));
    expect((await earn(playerId, referenceId)).status).toBe(500);
    expect(await points(playerId)).toBe(0);

    // While the attempt could still be in flight, the referenceId stays taken.
    expect((await earn(playerId, referenceId)).body.code).toBe(2601);
    expect((await t.http.get('/v1/action/get-response').query({ referenceId }).set(server)).body.code).toBe(5001);

    clock += 31_000;
    const retried = await earn(playerId, referenceId);
    expect(retried.body.code).toBe(200);
    expect(await points(playerId)).toBe(10);
    expect((await earn(playerId, referenceId)).body.code).toBe(2601);
  });

  it('after the player append: recovery completes the record from the player stream, nothing is applied twice', async () => {
    const playerId = await registered();
    const referenceId = ref();
    const append = t.service.deps.players.append.bind(t.service.deps.players);
    jest.spyOn(t.service.deps.players, 'append').mockImplementationOnce(async (...args) => {
      await append(...args);
      throw new Error('process killed after the player append');
    });
    expect((await earn(playerId, referenceId)).status).toBe(500);
    expect(await points(playerId)).toBe(10);

    clock += 31_000;
    const original = await t.http.get('/v1/action/get-response').query({ referenceId }).set(server);
    expect(original.body.data).toMatchObject({ referenceId, playerId, earnedPoints: 10 });
    expect((await earn(playerId, referenceId)).body.code).toBe(2601);
    expect(await points(playerId)).toBe(10);
  });
});

describe('a crash between a reversal and giving back its limited trigger activations', () => {
  const LIMITED = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { identifier: spin, points: 1 }
triggers:
  - { uid: t-jackpot, label: Jackpot, type: OneTimeOnly, limited: true, limit: 1, conditions: [{ action: spin }], deliverables: [{ deliverable: gold, amount: 5 }] }
`;
  it('gives them back by the scheduled job, once', async () => {
    const s = await startTestService({ catalogYaml: LIMITED, env: { STALE_RESERVATION_MS: '300' } });
    try {
      const [first, second] = [randomUUID(), randomUUID()];
      const spin = (playerId: string, referenceId: string) => s.http.post('/v1/action/process').set(server).send({ name: 'spin', referenceId, playerId });
      expect((await spin(first, 'jackpot-1')).body.data.triggers).toEqual([{ uid: 't-jackpot', label: 'Jackpot', points: 0 }]);
      jest.spyOn(stock, 'returnStock').mockRejectedValueOnce(new Error('process killed after the player append'));
      expect((await s.http.post('/v1/action/delete').set(server).send({ name: 'spin', referenceId: 'jackpot-1', playerId: first })).status).toBe(500);
      // The activation is still taken: another player cannot have it yet.
      expect((await spin(second, 'jackpot-2')).body.data.triggers).toBeNull();
      let held = true;
      for (let i = 0; i < 50 && held; i++) {
        await new Promise((r) => setTimeout(r, 100));
        held = (await stock.readStock(s.service.events, stock.TRIGGER_ACTIVATIONS, 't-jackpot')).total > 0;
      }
      expect(held).toBe(false);
      expect((await spin(second, 'jackpot-3')).body.data.triggers).toEqual([{ uid: 't-jackpot', label: 'Jackpot', points: 0 }]);
    } finally {
      await s.close();
    }
  });
});
