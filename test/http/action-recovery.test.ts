import { randomUUID } from 'node:crypto';
import { StoreUnavailableError, WrongExpectedVersionError } from '../../shared/adapters/event-store/port';
import { stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
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
const clock = Date.now();
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
const earn = (playerId: string, referenceId: string) =>
  t.http.post('/v1/action/process').set(server).send({ name: 'earn', referenceId, playerId, timestamp: clock });
const points = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data.points;

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

describe('an action whose one append did not happen, or whose answer was lost', () => {
  const response = (referenceId: string) => t.http.get('/v1/action/get-response').query({ referenceId }).set(server);

  it('not appended (the store failed, the process died before it): no trace; the retry is processed at once', async () => {
    const playerId = await registered();
    const referenceId = ref();
    jest.spyOn(t.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
    expect((await earn(playerId, referenceId)).status).toBe(503);
    expect(await points(playerId)).toBe(0);
    expect((await response(referenceId)).body.code).toBe(5001);

    const retried = await earn(playerId, referenceId);
    expect(retried.body.data).toMatchObject({ referenceId, earnedPoints: 10 });
    expect(await points(playerId)).toBe(10);
    expect((await earn(playerId, referenceId)).body.code).toBe(2601);
  });

  it('appended, answer lost: the retry answers 2601 and get-response has the result at once; nothing applied twice', async () => {
    const playerId = await registered();
    const referenceId = ref();
    const append = t.service.events.appendToStreams.bind(t.service.events);
    jest.spyOn(t.service.events, 'appendToStreams').mockImplementationOnce(async (appends) => {
      await append(appends);
      throw new StoreUnavailableError('connection lost after the append');
    });
    expect((await earn(playerId, referenceId)).status).toBe(503);

    expect((await earn(playerId, referenceId)).body.code).toBe(2601);
    expect((await response(referenceId)).body.data).toMatchObject({ referenceId, playerId, earnedPoints: 10 });
    expect(await points(playerId)).toBe(10);
  });
});

describe('a reversal of an action that won a limited trigger', () => {
  const LIMITED = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { identifier: spin, points: 1 }
triggers:
  - { uid: t-jackpot, label: Jackpot, type: OneTimeOnly, limited: true, limit: 1, conditions: [{ action: spin }], deliverables: [{ deliverable: gold, amount: 5 }] }
`;
  it('gives the activation back in its own append: the next player wins it at once; a failed reversal gives nothing back', async () => {
    const s = await startTestService({ catalogYaml: LIMITED });
    try {
      const [first, second] = [randomUUID(), randomUUID()];
      const spin = (playerId: string, referenceId: string) =>
        s.http.post('/v1/action/process').set(server).send({ name: 'spin', referenceId, playerId });
      const reverse = () =>
        s.http.post('/v1/action/delete').set(server).send({ name: 'spin', referenceId: 'jackpot-1', playerId: first });
      const jackpot = [{ uid: 't-jackpot', label: 'Jackpot', points: 0 }];
      expect((await spin(first, 'jackpot-1')).body.data.triggers).toEqual(jackpot);
      expect((await spin(second, 'jackpot-2')).body.data.triggers).toBeNull();

      jest.spyOn(s.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
      expect((await reverse()).status).toBe(503);
      expect((await spin(second, 'jackpot-3')).body.data.triggers).toBeNull();

      expect((await reverse()).body).toEqual({ code: 200 });
      expect((await spin(second, 'jackpot-4')).body.data.triggers).toEqual(jackpot);
      const stockEvents = (await s.service.events.readStream(stockStream(TRIGGER_ACTIVATIONS, 't-jackpot'))).map(
        (e) => [e.type, (e.data as { holder: string }).holder],
      );
      expect(stockEvents).toEqual([
        ['TriggerActivationTaken', 'jackpot-1'],
        ['TriggerActivationReturned', 'jackpot-1'],
        ['TriggerActivationTaken', 'jackpot-4'],
      ]);
    } finally {
      await s.close();
    }
  });
});

describe('a limited stock contended through every retry', () => {
  const CONTENDED = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: box, label: Box, type: Prize, kind: Chest, chest: { pool: [{ reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 5 }] } }
actions:
  - { identifier: spin, points: 1 }
  - { identifier: get-box, deliverables: [{ deliverable: box, amount: 1 }] }
triggers:
  - { uid: t-jackpot, label: Jackpot, type: OneTimeOnly, limited: true, limit: 1, conditions: [{ action: spin }], deliverables: [{ deliverable: gold, amount: 5 }] }
`;
  const BUSY = { code: 503, data: 'Too many concurrent changes; retry later' };

  it('answers 503 and changes nothing; the retry is processed at once, with the same referenceId', async () => {
    const s = await startTestService({ catalogYaml: CONTENDED });
    try {
      const playerId = randomUUID();
      const append = s.service.events.appendToStreams.bind(s.service.events);
      // Every other request wins the race for the stock streams first.
      jest.spyOn(s.service.events, 'appendToStreams').mockImplementation(async (appends) => {
        const contended = appends.find((a) => /^(trigger-limit|chest-stock)-/.test(a.stream));
        return contended
          ? Promise.reject(new WrongExpectedVersionError(contended.stream, contended.expectedRevision, 0))
          : append(appends);
      });
      const post = (path: string, body: object) => s.http.post(path).set(server).send(body);
      const spun = await post('/v1/action/process', { name: 'spin', referenceId: 'spin-1', playerId });
      expect([spun.status, spun.body]).toEqual([503, BUSY]);
      expect((await post('/v1/action/process', { name: 'get-box', referenceId: 'box-1', playerId })).body.code).toBe(
        200,
      );
      const opened = await post('/v1/chest/open', { playerId, chestDeliverableUId: 'box' });
      expect([opened.status, opened.body]).toEqual([503, BUSY]);
      const profile = async () => (await post('/v1/player/profile', { playerId })).body.data;
      expect(await profile()).toMatchObject({ points: 0, balances: [{ deliverableUid: 'box', amount: 1 }] });
      expect(await s.service.events.readStream(stockStream(TRIGGER_ACTIVATIONS, 't-jackpot'))).toEqual([]);

      jest.restoreAllMocks();
      const retried = await post('/v1/action/process', { name: 'spin', referenceId: 'spin-1', playerId });
      expect(retried.body.data.triggers).toEqual([{ uid: 't-jackpot', label: 'Jackpot', points: 0 }]);
      expect((await post('/v1/chest/open', { playerId, chestDeliverableUId: 'box' })).body.code).toBe(200);
      const after = await profile();
      expect(after.points).toBe(1);
      expect(
        Object.fromEntries(
          after.balances.map((b: { deliverableUid: string; amount: number }) => [b.deliverableUid, b.amount]),
        ),
      ).toEqual({ gold: 5, sword: 1 });
    } finally {
      await s.close();
    }
  });
});
