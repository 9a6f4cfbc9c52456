/** GET /v1/audit/*, POST /v1/audit/verify and POST /v1/audit/simulate: reads for auditors and analysts (Server and Auditor keys). */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Catalog } from '../../domain/catalog';
import { catalogFields, catalogOfBody } from '../../shared/adapters/http/catalog-body';
import type { Verification } from '../../shared/read-models/verification';
import { playerStream } from '../../domain/streams';
import { OPERATORS } from '../../shared/adapters/auth/access';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { fail, ok, type Result } from '../../domain/result';
import { defineRoute, parseWith, requireObject, type AnyRoute, type RawInput } from '../../shared/adapters/http/route';
import { auditEventShape, simulationShape, type Simulation } from '../../shared/adapters/http/wire-shapes';
import { canonicalPlayerId } from '../../domain/ids';
import { PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { auditEvent } from './events';
import { traceAdjustment, traceChestOpening, traceProvision, traceReference } from './trace';
import { documented, ERRORS, refuse } from '../../domain/errors';
import type { AuditRun, AuditRuns } from './runs';

export interface AuditDeps {
  events: EventStore;
  /**
   * Replays the log into fresh read models and compares them with the live ones (the projections'
   * own check), telling how far its replay got. Its scratch store is dropped at its end, failed or
   * not; `removeLeftovers` drops those of verifications interrupted with their process.
   */
  verify(onProgress: (eventsReplayed: number, position: number) => void): Promise<Verification>;
  removeLeftovers(): Promise<void>;
  /** One verification and one simulation at a time per deployment, their progress and outcome readable after their request. */
  runs: AuditRuns;
  /**
   * Replays the log under a draft catalog and reports what would differ; writes nothing. One at a
   * time per deployment (9032), its progress and report kept in `runs` (going on when its request
   * ends first); stopped when its memory passes the ceiling or the service stops (9033).
   */
  simulate(draft: Catalog, options: { players?: ReadonlySet<string>; top: number }): Promise<Result<Simulation>>;
}

/** A simulation's body carries a whole catalog. */
export const SIMULATE_MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_SIMULATED_PLAYERS = 10_000;
const MAX_TOP = 1000;
const DEFAULT_TOP = 100;

const simulateBody = z.object({
  ...catalogFields,
  players: z
    .array(z.string().meta(PLAYER_ID_DOC))
    .max(MAX_SIMULATED_PLAYERS, `at most ${MAX_SIMULATED_PLAYERS} players`)
    .meta({ description: 'only these players (default: all); ids with no history are ignored' })
    .optional(),
  top: z
    .number()
    .int(`must be a whole number from 1 to ${MAX_TOP}`)
    .min(1, `must be a whole number from 1 to ${MAX_TOP}`)
    .max(MAX_TOP, `must be a whole number from 1 to ${MAX_TOP}`)
    .meta({ description: `at most this many players in the answer (default ${DEFAULT_TOP})` })
    .optional(),
});

const MAX_EVENTS = 1000;
const DEFAULT_EVENTS = 100;

const wholeNumber = (message: string) =>
  z.string().regex(/^\d+$/, message).transform(Number).pipe(z.number().int().max(Number.MAX_SAFE_INTEGER, message));

const eventsQuery = z.object({
  from: wholeNumber('must be a stream revision (a whole number)').optional(),
  limit: wholeNumber(`must be a whole number from 1 to ${MAX_EVENTS}`)
    .refine((n) => n >= 1 && n <= MAX_EVENTS, `must be a whole number from 1 to ${MAX_EVENTS}`)
    .optional(),
  last: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .meta({ description: 'true: the newest `limit` events (in stream order), instead of those from a revision' })
    .optional(),
});

const traceQuery = z.object({
  referenceId: z.string().min(1).optional(),
  provisionUid: z.string().min(1).optional(),
  openingUid: z
    .string()
    .min(1)
    .meta({ description: 'a chest opening, as its answer gave it; with the playerId of the opening' })
    .optional(),
  adjustmentUid: z
    .string()
    .min(1)
    .meta({ description: 'a support adjustment, as its answer gave it; with the playerId of the adjustment' })
    .optional(),
  playerId: z
    .string()
    .meta({ ...PLAYER_ID_DOC, description: 'the player of openingUid or adjustmentUid' })
    .optional(),
});

const causalChainShape = z.object({
  cause: z.string(),
  correlationId: z.string(),
  causationId: z.string(),
  keyName: z.string(),
  catalogVersion: z.number(),
  catalogPublishedBy: z
    .string()
    .nullable()
    .describe("who published the catalog version the request was decided under: the API key's name, or file"),
  time: z.number().int(),
  events: z.array(
    z.object({
      position: z.number().int(),
      stream: z.string(),
      revision: z.number().int(),
      type: z.string(),
      time: z.number().int(),
      summary: z.string(),
    }),
  ),
  balanceChanges: z.array(
    z.object({
      position: z.number().int(),
      type: z.string(),
      balance: z.string().describe('a deliverable uid, or points'),
      before: z.number(),
      change: z.number(),
      after: z.number(),
    }),
  ),
  rules: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "for an action: the catalog version, the rule behind each award and level, and for each award the actions that made up its challenge (`challenge`: per condition, their referenceId, time and value); the streaks it counted for with the milestones it reached (`streaks`), the missions it made progress in with the steps it met and the completion it made (`missions`), the caps that cut it (`caps`), the lots of currencies that expire it granted or drew, with their expiry (`lots`), and the experiments it was decided under with the player's variant (`experiments`, absent for none)",
    ),
  recomputed: z
    .array(
      z.object({
        referenceId: z.string(),
        pointsBefore: z.number(),
        pointsAfter: z.number(),
        rules: z.record(z.string(), z.unknown()).describe('the rules as the recompute decided the action, as `rules`'),
      }),
    )
    .nullable()
    .describe("a recompute's chain: each action it decided differently, its points before and after and its rules"),
  takenBack: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "a reversal's chain: what it took back, each with the rule that had granted it: awards (with the action that earned them), streak milestones (`streakUid`, `length`), mission completions (`missionUid`, `period`), and the lots of the cost that had expired and were not given back (`lotsExpired`)",
    ),
});
const traceShape = z.union([
  z.object({
    referenceId: z.string(),
    playerId: z.string(),
    actionName: z.string(),
    reversed: z.boolean(),
    provisionUid: z.string().nullable(),
    chains: z.array(causalChainShape),
  }),
  z.object({
    provisionUid: z.string(),
    playerId: z.string(),
    referenceType: z.enum(['Store', 'Action']),
    bundleUid: z.string().nullable(),
    referenceId: z.string().nullable(),
    status: z.enum(['Pending', 'Completed', 'Refunded', 'Failed']),
    chains: z.array(causalChainShape),
  }),
  z.object({
    openingUid: z.string(),
    playerId: z.string(),
    chestDeliverableUid: z.string(),
    chestLabel: z.string(),
    chains: z.array(causalChainShape),
  }),
  z.object({
    adjustmentUid: z.string(),
    playerId: z.string(),
    reason: z.string(),
    keyName: z.string(),
    chains: z.array(causalChainShape),
  }),
]);
const verificationShape = z.object({
  differences: z.array(
    z.object({
      collection: z.string(),
      _id: z.string(),
      path: z
        .string()
        .describe('dotted path of the field that differs; empty when the document is missing on one side'),
      live: z.unknown().optional().describe('absent when the field or document is missing on this side'),
      rebuilt: z.unknown().optional().describe('absent when the field or document is missing on this side'),
    }),
  ),
  truncated: z.boolean().describe('more differences than listed (at most 1,000 are)'),
  unsettled: z
    .number()
    .int()
    .describe(
      'documents that differed but that writes during the check kept changing: not listed, not known equal; verify again',
    ),
  position: z.number().int().describe('the log position replayed to: each difference listed held there'),
  eventsReplayed: z.number().int(),
  collections: z.array(z.string()),
  ms: z.number().int().describe('how long the replay and the comparison took'),
});

/** A long audit run as GET answers it: under way, or the last one (read-api/audit/runs.ts). */
function runShape<R extends z.ZodType>(result: R, uid: string, resultDescription: string) {
  return z.object({
    [uid]: z.string(),
    status: z
      .enum(['Running', 'Completed', 'Failed', 'Interrupted'])
      .describe('Interrupted: its process stopped (killed, restarted) before it ended'),
    startedAt: z.number().int(),
    endedAt: z.number().int().nullable(),
    progress: z
      .object({
        eventsReplayed: z.number().int(),
        position: z.number().int().describe('the log position the replay reached'),
        head: z.number().int().describe("the log's head the replay goes to"),
      })
      .describe('as written at most 5 s before'),
    result: result.nullable().describe(resultDescription),
    error: z.string().nullable().describe('why it Failed or was Interrupted'),
  });
}

function runAnswer<R>(run: AuditRun<R>, uid: string): Record<string, unknown> {
  const { runUid, progress, ...rest } = run;
  return {
    [uid]: runUid,
    ...rest,
    progress: {
      eventsReplayed: progress.eventsReplayed ?? 0,
      position: progress.position ?? 0,
      head: progress.head ?? 0,
    },
  };
}

/** Server-only reads for auditors and analysts: a player's raw stream, causal traces, and a read model check. */
export function auditRoutes(deps: AuditDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/audit/players/:playerId/events',
      tiers: OPERATORS,
      doc: {
        operationId: 'playerEvents',
        summary: "A player's stream: every event with its metadata, from a revision or the newest",
        query: eventsQuery,
        response: z.array(auditEventShape),
        errors: {
          1001: 'from or limit is not a whole number in range, last is not true or false, or both from and last are given',
          ...documented(ERRORS.INVALID_PLAYER_ID),
          ...documented(ERRORS.PLAYER_DOES_NOT_EXIST),
        },
      },
      parse: ({ params, query }) => {
        const playerId = canonicalPlayerId(params.playerId);
        if (!playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
        const q = parseWith(eventsQuery, query);
        if (!q.ok) return q;
        const last = q.value.last === 'true';
        if (last && q.value.from !== undefined) return fail(1001, 'from and last: give one or the other');
        return ok({ playerId, from: q.value.from ?? 0, last, limit: q.value.limit ?? DEFAULT_EVENTS });
      },
      async handle({ playerId, from, last, limit }) {
        const stream = playerStream(playerId);
        const revision = await deps.events.streamRevision(stream);
        if (revision < 0) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
        const fromRevision = last ? Math.max(0, revision + 1 - limit) : from;
        return ok((await deps.events.readStream(stream, { fromRevision, maxCount: limit })).map(auditEvent));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/audit/trace',
      tiers: OPERATORS,
      doc: {
        operationId: 'trace',
        summary:
          'The causal chain of an action (referenceId), a provision (provisionUid), a chest opening (openingUid and playerId) or a support adjustment (adjustmentUid and playerId): requests, events, rules, balance changes before and after, reversals and refunds',
        query: traceQuery,
        response: traceShape,
        errors: {
          1001: 'Give exactly one of referenceId, provisionUid, openingUid or adjustmentUid; playerId with openingUid or adjustmentUid only',
          ...documented(ERRORS.INVALID_PLAYER_ID),
          ...documented(ERRORS.ACTION_NOT_FOUND),
          ...documented(ERRORS.TRANSACTION_NOT_FOUND),
          9010: 'Chest opening not found for that player',
          ...documented(ERRORS.ADJUSTMENT_NOT_FOUND),
        },
      },
      parse: ({ query }) => {
        const q = parseWith(traceQuery, query);
        if (!q.ok) return q;
        const { referenceId, provisionUid, openingUid, adjustmentUid } = q.value;
        if ([referenceId, provisionUid, openingUid, adjustmentUid].filter((given) => given !== undefined).length !== 1)
          return fail(1001, 'Give exactly one of referenceId, provisionUid, openingUid or adjustmentUid');
        if ((openingUid === undefined && adjustmentUid === undefined) !== (q.value.playerId === undefined))
          return fail(
            1001,
            "Give playerId with openingUid or adjustmentUid, and only with them: they are found on that player's stream",
          );
        if (referenceId !== undefined) return ok({ referenceId });
        if (provisionUid !== undefined) return ok({ provisionUid: provisionUid.toLowerCase() });
        const playerId = canonicalPlayerId(q.value.playerId);
        if (!playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
        return adjustmentUid !== undefined
          ? ok({ adjustmentUid: adjustmentUid.toLowerCase(), playerId })
          : ok({ openingUid: openingUid!.toLowerCase(), playerId });
      },
      async handle(subject) {
        if ('referenceId' in subject) {
          const trace = await traceReference(deps.events, subject.referenceId);
          return trace ? ok(trace) : refuse(ERRORS.ACTION_NOT_FOUND);
        }
        if ('adjustmentUid' in subject) {
          const trace = await traceAdjustment(deps.events, subject.playerId, subject.adjustmentUid);
          return trace ? ok(trace) : refuse(ERRORS.ADJUSTMENT_NOT_FOUND);
        }
        if ('openingUid' in subject) {
          const trace = await traceChestOpening(deps.events, subject.playerId, subject.openingUid);
          return trace ? ok(trace) : fail(9010, 'Chest opening not found for that player');
        }
        const trace = await traceProvision(deps.events, subject.provisionUid);
        return trace ? ok(trace) : refuse(ERRORS.TRANSACTION_NOT_FOUND);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/audit/simulate',
      tiers: OPERATORS,
      maxBodyBytes: SIMULATE_MAX_BODY_BYTES,
      doc: {
        operationId: 'simulate',
        summary:
          'What would differ had a draft catalog always been in force: the log replayed on a scratch state, every action decided again; nothing is written',
        body: simulateBody,
        response: simulationShape,
        errors: {
          1001: 'Body, top or players malformed, `catalog` and `yaml` both given or neither, or the catalog invalid or over its limits (one line per problem)',
          1002: 'Invalid player: each of players must be a UUID',
          ...documented(ERRORS.SIMULATION_RUNNING),
          9033: `${ERRORS.SIMULATION_STOPPED.message}: its heap passed SIMULATE_MAX_HEAP_MB`,
        },
      },
      parse: parseSimulation,
      handle: ({ catalog, players, top }) => deps.simulate(catalog, { players, top }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/audit/simulate',
      tiers: OPERATORS,
      doc: {
        operationId: 'simulation',
        summary:
          'The simulation under way, or the last one: its progress, and once completed its report (as POST /v1/audit/simulate gave it, or would have)',
        response: runShape(simulationShape, 'simulationUid', "once Completed: the simulation's report"),
        errors: documented(ERRORS.SIMULATION_NOT_FOUND),
      },
      parse: () => ok({}),
      async handle() {
        const run = await deps.runs.latest<Simulation>('simulate');
        return run ? ok(runAnswer(run, 'simulationUid')) : refuse(ERRORS.SIMULATION_NOT_FOUND);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/audit/verify',
      tiers: OPERATORS,
      doc: {
        operationId: 'verify',
        summary:
          'Replay every event into fresh read models and compare them with the live ones; one at a time per deployment, going on if the request ends first (GET /v1/audit/verify reads it then)',
        response: verificationShape,
        errors: documented(ERRORS.VERIFICATION_RUNNING),
      },
      parse: () => ok({}),
      async handle() {
        const runUid = randomUUID();
        const head = await deps.events.headPosition();
        if (!(await deps.runs.begin('verify', runUid, { eventsReplayed: 0, position: 0, head })))
          return refuse(ERRORS.VERIFICATION_RUNNING);
        try {
          // Only one runs: any scratch store besides its own is an interrupted one's.
          await deps.removeLeftovers();
          const result = await deps.verify((eventsReplayed, position) =>
            deps.runs.report('verify', { eventsReplayed, position, head }),
          );
          await deps.runs.end('verify', runUid, { result });
          return ok(result);
        } catch (error) {
          await deps.runs.end('verify', runUid, { error: (error as Error).message });
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/audit/verify',
      tiers: OPERATORS,
      doc: {
        operationId: 'verification',
        summary:
          'The verification under way, or the last one: its progress, and once completed its answer (as POST /v1/audit/verify gave it, or would have)',
        response: runShape(verificationShape, 'verificationUid', "once Completed: the verification's answer"),
        errors: documented(ERRORS.VERIFICATION_NOT_FOUND),
      },
      parse: () => ok({}),
      async handle() {
        const run = await deps.runs.latest<Verification>('verify');
        return run ? ok(runAnswer(run, 'verificationUid')) : refuse(ERRORS.VERIFICATION_NOT_FOUND);
      },
    }),
  ];
}

function parseSimulation({ body }: RawInput): Result<{ catalog: Catalog; players?: ReadonlySet<string>; top: number }> {
  const object = requireObject(body);
  if (!object.ok) return object;
  const fields = parseWith(simulateBody, object.value);
  if (!fields.ok) return fields;
  let players: Set<string> | undefined;
  if (fields.value.players) {
    players = new Set();
    for (const given of fields.value.players) {
      const playerId = canonicalPlayerId(given);
      if (!playerId) return fail(1002, `Invalid player: ${JSON.stringify(given).slice(0, 80)} is not a UUID`);
      players.add(playerId);
    }
  }
  const draft = catalogOfBody(fields.value);
  if (!draft.ok) return draft;
  const parsed = draft.value;
  if (!parsed.ok) return fail(1001, parsed.problems.join('\n'));
  return ok({ catalog: parsed.catalog, players, top: fields.value.top ?? DEFAULT_TOP });
}
