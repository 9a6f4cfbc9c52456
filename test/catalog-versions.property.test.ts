/**
 * Actions mixed with catalog publications, at once and scheduled (with and without an end), and
 * the clock moving on: each action is decided under the version a plain model of the rule says is
 * in force at the service's clock (the latest effectiveAt among those started and not ended, the
 * higher version on a tie), names it in its events, earns what that version says; and the log
 * replayed gives the live read models (verify stays clean).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { auditor, server, startTestService } from './support/service';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261129);
const MINUTE = 60_000;
const catalogWith = (points: number) => `
version: 1
actions:
  - { uid: act-login, identifier: login, points: ${points} }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;

type Step =
  | { kind: 'act' }
  | { kind: 'wait'; minutes: number }
  | { kind: 'publish'; startIn: number | null; lasts: number | null };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'act' }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('publish' as const),
    startIn: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    lasts: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
  }),
);

/** The model: each version's schedule and the points a login earns under it. */
interface ModelVersion {
  version: number;
  effectiveAt: number;
  until: number | null;
  points: number;
}
const inForceAt = (versions: ModelVersion[], t: number): ModelVersion =>
  versions
    .filter((v) => v.effectiveAt <= t && (v.until === null || v.until > t))
    .sort((a, b) => b.effectiveAt - a.effectiveAt || b.version - a.version)[0];

it('every action is decided under the version in force at the service clock, and verify stays clean', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
      let clock = Date.UTC(2026, 10, 29, 12);
      const t = await startTestService({ catalogYaml: catalogWith(1), now: () => clock });
      try {
        const model: ModelVersion[] = [{ version: 1, effectiveAt: clock, until: null, points: 1 }];
        for (const s of [...steps, { kind: 'act' } as const]) {
          if (s.kind === 'wait') clock += s.minutes * MINUTE;
          if (s.kind === 'publish') {
            const version = model.length + 1;
            const effectiveAt = s.startIn === null ? clock : clock + s.startIn * MINUTE;
            const until = s.lasts === null ? null : effectiveAt + s.lasts * MINUTE;
            const res = await t.http
              .post('/v1/admin/catalog/publish')
              .set(server)
              .send({
                yaml: catalogWith(version),
                expectedVersion: model.length,
                ...(s.startIn === null ? {} : { effectiveAt }),
                ...(until === null ? {} : { until }),
              });
            expect(res.body).toMatchObject({ code: 200, data: { version, effectiveAt, until } });
            model.push({ version, effectiveAt, until, points: version });
          }
          if (s.kind === 'act') {
            const expected = inForceAt(model, clock);
            const playerId = randomUUID();
            const referenceId = randomUUID();
            const done = await t.http
              .post('/v1/action/process')
              .set(server)
              .send({ playerId, name: 'login', referenceId });
            expect(done.body.code).toBe(200);
            const profile = await t.http.post('/v1/player/profile').set(server).send({ playerId });
            const trace = await t.http.get('/v1/audit/trace').query({ referenceId }).set(auditor);
            expect([profile.body.data.points, trace.body.data.chains[0].catalogVersion]).toEqual([
              expected.points,
              expected.version,
            ]);
          }
        }
        const verified = await t.http.post('/v1/audit/verify').set(server);
        expect(verified.body.data.differences).toEqual([]);
      } finally {
        await t.close();
      }
    }),
    { numRuns: 8, seed: SEED, endOnFailure: true },
  );
}, 300_000);
