import type { EventMetadata } from '../../shared/event-store/port';
import type { ActionProcessed } from '../../shared/events/player-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { jobMetadata, type CommandDeps } from '../deps';
import { recoverReference } from '../process-action/handler';
import { readReference } from '../references/reference-stream';
import { retryOnConflict } from '../retry';
import { returnStock, TRIGGER_ACTIVATIONS } from '../limited-stock/stock-stream';
import { decideReverseAction, type ReverseActionCommand } from './decider';

/** Reverses a processed action with one compensating ActionReversed on the player stream. */
export async function reverseAction(cmd: ReverseActionCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ position: number }>> {
  let reference = await readReference(deps.events, cmd.referenceId);
  if (reference.status === 'reserved' && deps.now() - reference.reservedAt >= deps.staleReservationMs) {
    reference = await recoverReference(cmd.referenceId, reference, metadata, deps);
  }
  if (reference.status !== 'completed') return fail(101, 'Action is not reversible: unknown referenceId');
  if (reference.playerId !== cmd.playerId) return fail(101, 'Action is not reversible: it belongs to another player');

  const outcome = await retryOnConflict(async () => {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const at = state.processed.get(cmd.referenceId);
    const original = at === undefined ? null : ((await deps.players.eventAt(cmd.playerId, at))?.data as ActionProcessed | undefined) ?? null;
    const decision = decideReverseAction(cmd, state, original, deps.catalog().catalog, deps.now());
    if (!decision.ok) return decision;
    const limited = decision.value.revokedAwards.filter((a) => a.limited).map((a) => ({ triggerUid: a.uid, holder: a.awardedBy }));
    // Should the process stop between the two appends, the job gives the activations back.
    if (limited.length) await deps.jobs.schedule(RETURN_ACTIVATIONS, returnActivationsJobId(cmd.referenceId), deps.now() + deps.staleReservationMs, { playerId: cmd.playerId, referenceId: cmd.referenceId, limited });
    const appended = await deps.players.append(cmd.playerId, [{ type: 'ActionReversed', data: decision.value }], revision, metadata);
    return ok({ position: appended.position, limited });
  });
  if (!outcome.ok) return outcome;
  // Revoked activations of limited triggers go back to the pool for other players.
  await returnActivations(cmd.playerId, outcome.value.limited, metadata, deps);
  if (outcome.value.limited.length) await deps.jobs.cancel(returnActivationsJobId(cmd.referenceId));
  return ok({ position: outcome.value.position });
}

interface RevokedActivation {
  triggerUid: string;
  /** The action whose award took the activation. */
  holder: string;
}

const RETURN_ACTIVATIONS = 'return-trigger-activations';
const returnActivationsJobId = (referenceId: string): string => `return-trigger-activations-${referenceId}`;

async function returnActivations(playerId: string, limited: readonly RevokedActivation[], metadata: EventMetadata, deps: CommandDeps): Promise<void> {
  for (const a of limited) await returnStock(deps.events, TRIGGER_ACTIVATIONS, a.triggerUid, a.holder, playerId, metadata);
}

/** The job: once the reversal is on the player stream, its revoked activations go back (idempotent). */
export function registerReversalJobs(deps: CommandDeps): void {
  deps.jobs.handle(RETURN_ACTIVATIONS, async (payload, jobId) => {
    const { playerId, referenceId, limited } = payload as { playerId: string; referenceId: string; limited: RevokedActivation[] };
    const { state } = await deps.players.load(playerId);
    if (state.reversed.has(referenceId)) await returnActivations(playerId, limited, jobMetadata(jobId, deps), deps);
  });
}

