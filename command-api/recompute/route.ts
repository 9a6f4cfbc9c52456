/**
 * POST /v1/admin/recompute starts a recompute (run.ts) and answers at once; GET
 * /v1/admin/recompute/:recomputeUid answers its status. Its start and outcome are events of the
 * `recompute` stream; its progress is known to the process that runs it, and to the other command
 * processes through the shared store (progress.ts).
 */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { RECOMPUTES_FOLD } from '../../domain/recomputes';
import { foldStream } from '../../domain/stream-fold';
import { defineRoute, parseWith, requireObject, type AnyRoute, type RawInput } from '../../shared/adapters/http/route';
import { simulationShape } from '../../shared/adapters/http/wire-shapes';
import { fail, ok, type Result } from '../../domain/result';
import { RECOMPUTE_STREAM } from '../../domain/streams';
import { localIsoProblem, localIsoToEpochMs, parseLocalIso } from '../../domain/time/local-time';
import { runUseCase } from '../command';
import { replyOf, requestOrigin } from '../http';
import { documented, ERRORS, refuse } from '../../domain/errors';
import type { CommandDeps } from '../deps';
import type { SimulationReport } from '../replay/report';
import { startRecomputeDecider } from './decider';
import type { RecomputeProgress } from './progress';
import { recompute } from './run';

export interface RecomputeDeps extends CommandDeps {
  /** Resolves once the read models have projected the log up to `position`. */
  waitForProjected(position: number): Promise<unknown>;
  /** The recomputes running now, in this process or another command process. */
  progress: RecomputeProgress;
  /** Players a run's replay keeps in memory, the others spilled to a scratch file (REPLAY_PLAYERS_IN_MEMORY); default all. */
  replayPlayersInMemory?: number;
}

const REPORT_TOP = 100;

const startBody = z.object({
  from: z
    .string()
    .optional()
    .describe(
      "A local date-time (YYYY-MM-DDTHH:mm:ss) in the catalog's zone: each player's actions processed before their first one dated from it on stand as they stand now",
    ),
  dryRun: z.boolean().optional().describe('Report only: nothing is appended'),
});

const statusShape = z.object({
  recomputeUid: z.string(),
  status: z.enum(['Running', 'Completed', 'Failed']),
  message: z.string().optional(),
  progress: z.object({ eventsDone: z.number(), eventsTotal: z.number() }),
  applied: z.boolean(),
  report: simulationShape.nullable(),
});
type RecomputeStatus = z.infer<typeof statusShape>;

export function recomputeRoutes(deps: RecomputeDeps): AnyRoute[] {
  const { progress } = deps;

  async function run(recomputeUid: string, from: number | undefined, dryRun: boolean): Promise<void> {
    const metadata = {
      correlationId: recomputeUid,
      causationId: recomputeUid,
      keyName: 'recompute',
      catalogVersion: deps.catalog().version,
    };
    const outcome = await recompute(deps, {
      recomputeUid,
      from,
      dryRun,
      top: REPORT_TOP,
      metadata,
      playersInMemory: deps.replayPlayersInMemory,
      onProgress: (eventsDone, eventsTotal) => progress.report(recomputeUid, { eventsDone, eventsTotal }),
    }).then(
      async ({ report, applied }) => {
        // Completed once the read models show it.
        await deps.waitForProjected(await deps.events.headPosition());
        return {
          type: 'RecomputeCompleted' as const,
          data: { recomputeUid, applied, report, completedAt: deps.now() },
        };
      },
      (error: unknown) => ({
        type: 'RecomputeFailed' as const,
        data: { recomputeUid, message: error instanceof Error ? error.message : String(error), failedAt: deps.now() },
      }),
    );
    try {
      await deps.events.appendToStreams([
        {
          stream: RECOMPUTE_STREAM,
          expectedRevision: 'any',
          events: [{ id: deps.newUid(), type: outcome.type, data: outcome.data, metadata }],
        },
      ]);
    } finally {
      await progress.end(recomputeUid);
    }
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/v1/admin/recompute',
      tiers: ['Server'],
      idempotent: true,
      doc: {
        operationId: 'recompute',
        summary:
          'Re-decide the recorded actions under the published catalog, as simulate would, and make it so: one PlayerRecomputed per affected player; answers at once',
        body: startBody,
        response: z.object({ recomputeUid: z.string(), status: z.literal('Running') }),
        errors: {
          1001: 'Body malformed, or from not a local date-time',
          ...documented(ERRORS.RECOMPUTE_RUNNING),
        },
      },
      parse: parseStart,
      async handle(cmd, ctx) {
        const origin = requestOrigin(ctx, deps);
        const from =
          cmd.from === undefined ? undefined : localIsoToEpochMs(cmd.from, deps.catalog().catalog.settings.timezone);
        // Running in this process as it is at each attempt (a start that lost a race sees the one
        // that won), or in another one (its heartbeat heard lately).
        const running = await progress.runningNow();
        const start = { from, dryRun: cmd.dryRun, catalogVersion: deps.catalog().version, running };
        const started = await runUseCase(deps, startRecomputeDecider, start, origin);
        if (started.ok && !started.value.replayed) {
          const { recomputeUid } = started.value.answer;
          await progress.start(recomputeUid);
          void run(recomputeUid, from, cmd.dryRun).catch((error: unknown) =>
            ctx.log.error({ err: error, recomputeUid }, 'the recompute could not record its outcome'),
          );
        }
        return replyOf(started, (answer) => answer);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/recompute/:recomputeUid',
      tiers: OPERATORS,
      doc: {
        operationId: 'recomputeStatus',
        summary: "A recompute's status, progress and, once completed, its report",
        response: statusShape,
        errors: documented(ERRORS.RECOMPUTE_NOT_FOUND),
      },
      parse: (input) => ok({ recomputeUid: input.params.recomputeUid }),
      async handle({ recomputeUid }) {
        const status = await statusOf(recomputeUid);
        return status ? ok(status) : refuse(ERRORS.RECOMPUTE_NOT_FOUND, recomputeUid);
      },
    }),
  ];

  /** A recompute's status: its recorded outcome, else its progress in this process or another, else it was cut short. */
  async function statusOf(recomputeUid: string): Promise<RecomputeStatus | null> {
    const { state: recomputes } = foldStream(
      RECOMPUTE_STREAM,
      RECOMPUTES_FOLD,
      await deps.events.readStream(RECOMPUTE_STREAM),
    );
    const outcome = recomputes.get(recomputeUid);
    if (outcome === undefined) return null;
    if (outcome?.status === 'Completed') {
      // As run.ts recorded it: the engine's report, answered as the wire's Simulation (tsc checks it fits).
      const report = outcome.report as SimulationReport;
      const progress = { eventsDone: report.eventsReplayed, eventsTotal: report.eventsReplayed };
      return { recomputeUid, status: 'Completed', progress, applied: outcome.applied, report };
    }
    const now = await progress.of(recomputeUid);
    if (outcome?.status === 'Failed') {
      const failed = {
        recomputeUid,
        status: 'Failed' as const,
        message: outcome.message,
        applied: false,
        report: null,
      };
      return { ...failed, progress: now ?? { eventsDone: 0, eventsTotal: 0 } };
    }
    if (now) return { recomputeUid, status: 'Running', progress: now, applied: false, report: null };
    return {
      recomputeUid,
      status: 'Failed',
      message:
        'Interrupted: the process running it stopped during it; each player is recomputed or not; run it again to complete it',
      progress: { eventsDone: 0, eventsTotal: 0 },
      applied: false,
      report: null,
    };
  }
}

function parseStart({ body }: RawInput): Result<{ from?: string; dryRun: boolean }> {
  const object = requireObject(body ?? {});
  if (!object.ok) return object;
  const fields = parseWith(startBody, object.value);
  if (!fields.ok) return fields;
  const { from, dryRun } = fields.value;
  if (from !== undefined && !parseLocalIso(from)) return fail(1001, `from: ${localIsoProblem(from)}`);
  return ok({ ...(from !== undefined ? { from } : {}), dryRun: dryRun ?? false });
}
