import { WrongExpectedVersionError, type EventMetadata, type EventStore } from '../../shared/event-store/port';
import type { ChestOpened } from '../../shared/events/inventory-events';
import { fail, ok, TOO_MANY_CONCURRENT_CHANGES, type Result } from '../../shared/http/envelope';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { CHEST_STOCK, readStock, returnStock, takeStock } from '../limited-stock/stock-stream';
import { decideOpenChest, findChest, limitedSlots, stockUnitsOf, type OpenChestCommand } from './decider';

const MAX_ATTEMPTS = 50;

/**
 * `settle-chest-opening` returns the stock an opening took when the opening never reached the
 * player's stream (the process died between the take and the append), and any units the recorded
 * opening does not name. It is scheduled before the first unit is taken.
 */
export const SETTLE_CHEST_OPENING = 'settle-chest-opening';
export const settleOpeningJobId = (openingUid: string): string => `settle-chest-opening-${openingUid}`;

export interface SettleOpeningPayload {
  openingUid: string;
  playerId: string;
  /** Unix ms the opening started: it is taken for dead `staleReservationMs` later. */
  startedAt: number;
  /** Every limited stock of the chest, so the job needs no catalog to know where to look. */
  stockUids: string[];
}

/**
 * Opens a chest: a short process over the player's stream and the stocks of the limited entries
 * drawn. Before any unit is taken a settlement job is scheduled; units are taken for the prizes
 * drawn (a take that comes up short re-reads the stock and re-decides); then ChestOpened is
 * appended at the expected revision. Never a limited prize over its stock, never a unit lost.
 */
export async function openChest(cmd: OpenChestCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ opened: ChestOpened; position: number }>> {
  const openingUid = deps.newUid();
  const startedAt = deps.now();
  /** Units this opening holds, by stock uid. */
  const held = new Map<string, number>();
  let settlementScheduled = false;
  const giveBack = async (keep: ReadonlyMap<string, number>) => {
    for (const [stockUid, units] of [...held]) {
      if (keep.get(stockUid) === units) continue;
      await returnStock(deps.events, CHEST_STOCK, stockUid, openingUid, cmd.playerId, metadata);
      held.delete(stockUid);
    }
  };
  const abandon = async <T>(outcome: Result<T>): Promise<Result<T>> => {
    await giveBack(new Map());
    if (settlementScheduled) await deps.jobs.cancel(settleOpeningJobId(openingUid));
    return outcome;
  };

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const { catalog } = deps.catalog();
    const chest = findChest(catalog, cmd.chestUid, deps.now());
    const limited = chest.ok ? limitedSlots(chest.value) : [];
    const stockLeft = await unitsLeft(deps.events, limited, openingUid);
    const decision = decideOpenChest(cmd, state, { ...decisionEnv(deps), catalog, openingUid, stockLeft });
    if (!decision.ok) return abandon(decision);
    const opened = decision.value;
    const needed = stockUnitsOf(opened.prizes);

    if (needed.size && !settlementScheduled) {
      const payload: SettleOpeningPayload = { openingUid, playerId: cmd.playerId, startedAt, stockUids: limited.map((s) => s.stockUid) };
      await deps.jobs.schedule(SETTLE_CHEST_OPENING, settleOpeningJobId(openingUid), startedAt + deps.staleReservationMs, { ...payload });
      settlementScheduled = true;
    }
    // Units held for an earlier decision that this one draws differently go back first.
    await giveBack(needed);
    let short = false;
    for (const [stockUid, units] of needed) {
      if (held.has(stockUid)) continue;
      const limit = limited.find((s) => s.stockUid === stockUid)!.limit;
      if (await takeStock(deps.events, CHEST_STOCK, stockUid, limit, openingUid, cmd.playerId, metadata, units)) held.set(stockUid, units);
      else short = true;
    }
    if (short) continue;
    // Past this point the settlement job may already be returning the units of an opening it takes for dead.
    if (held.size && deps.now() - startedAt >= deps.staleReservationMs / 2) return abandon(fail(503, 'Opening the chest took too long; nothing was consumed, retry later'));
    let position: number;
    try {
      position = (await deps.players.append(cmd.playerId, [{ type: 'ChestOpened', data: opened }], revision, metadata)).position;
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
      continue;
    }
    if (settlementScheduled) await deps.jobs.cancel(settleOpeningJobId(openingUid));
    return ok({ opened, position });
  }
  return abandon(fail(503, TOO_MANY_CONCURRENT_CHANGES));
}

/** Units left of each limited stock, counting those this opening already holds as its own. */
async function unitsLeft(events: EventStore, limited: { stockUid: string; limit: number }[], openingUid: string): Promise<Map<string, number>> {
  const left = new Map<string, number>();
  for (const { stockUid, limit } of limited) {
    const { held, total } = await readStock(events, CHEST_STOCK, stockUid);
    left.set(stockUid, Math.max(0, limit - total + (held.get(openingUid) ?? 0)));
  }
  return left;
}

/** The job: an opening on the player's stream keeps the units its prizes name; everything else goes back. */
export async function settleChestOpening(payload: SettleOpeningPayload, deps: CommandDeps): Promise<void> {
  const { openingUid, playerId, startedAt, stockUids } = payload;
  const { state } = await deps.players.load(playerId);
  const opened = state.chestOpenings.get(openingUid);
  // Not recorded yet and possibly still in flight: look again once it cannot be.
  if (!opened && deps.now() < startedAt + deps.staleReservationMs) {
    await deps.jobs.schedule(SETTLE_CHEST_OPENING, settleOpeningJobId(openingUid), startedAt + deps.staleReservationMs, { ...payload });
    return;
  }
  const kept = opened ? stockUnitsOf(opened.prizes) : new Map<string, number>();
  const metadata = jobMetadata(settleOpeningJobId(openingUid), deps);
  for (const stockUid of stockUids) if (!kept.has(stockUid)) await returnStock(deps.events, CHEST_STOCK, stockUid, openingUid, playerId, metadata);
}

export function registerChestJobs(deps: CommandDeps): void {
  deps.jobs.handle(SETTLE_CHEST_OPENING, async (payload) => settleChestOpening(payload as unknown as SettleOpeningPayload, deps));
}
