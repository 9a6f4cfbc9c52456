import type { EventMetadata } from '../../shared/event-store/port';
import type { ActionProcessed } from '../../shared/events/player-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import type { CommandDeps } from '../deps';
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
    const appended = await deps.players.append(cmd.playerId, [{ type: 'ActionReversed', data: decision.value }], revision, metadata);
    return ok({ position: appended.position, limited: decision.value.revokedAwards.filter((a) => a.limited) });
  });
  if (!outcome.ok) return outcome;
  // Revoked activations of limited triggers go back to the pool for other players.
  for (const a of outcome.value.limited) await returnStock(deps.events, TRIGGER_ACTIVATIONS, a.uid, a.awardedBy, cmd.playerId, metadata);
  return ok({ position: outcome.value.position });
}

