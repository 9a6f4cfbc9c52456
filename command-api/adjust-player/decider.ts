/** A support adjustment: points and deliverables granted or taken back for one player, with a reason. */
import { addAmounts } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { noEffects } from '../../domain/events/common';
import type { PlayerAdjusted } from '../../domain/events/player-events';
import { scopedAttributes } from '../../domain/player/attributes';
import type { PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { addBalance, effectsOfGrants, grantOf } from '../../domain/rules/grants';
import { levelsReachedAt } from '../../domain/rules/levels';
import { availableBalance, lotsDrawn, negated } from '../../domain/rules/lots';
import { playerStream } from '../../domain/streams';
import { ERRORS, refuse } from '../../domain/errors';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { decision, type Decider } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';

export interface AdjustPlayerCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  reason: string;
  /** The name of the API key that asks. */
  keyName: string;
  /** Signed; 0 leaves the points as they are. */
  points: number;
  /** Signed, non-zero amounts, each deliverable once. */
  deliverables: { deliverable: string; amount: number }[];
}

/**
 * An adjustment of a registered player (else 5003, as every admin request naming them): what it
 * grants is granted as an action's grants are (powerups as instances, a currency that expires as
 * a lot); what it takes back is taken from what the player holds, a currency that expires from its
 * lots soonest to expire first, and never more (9011). Powerups are granted only: taking one back
 * is deactivating or letting it expire, not an adjustment (1001). Points granted reach levels, as
 * a chest's do; points taken back take none back.
 */
export const decideAdjustPlayer: Decider<AdjustPlayerCommand, PlayerState, PlayerAdjusted> = (cmd, player, env) => {
  const { catalog } = env;
  if (!player.registered) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
  const byUid = indexCatalog(catalog).deliverableByUid;
  for (const { deliverable, amount } of cmd.deliverables) {
    const d = byUid.get(deliverable);
    if (!d) return refuse(ERRORS.UNKNOWN_DELIVERABLE, deliverable);
    if (d.kind === 'Powerup' && amount < 0) return refuse(ERRORS.POWERUP_NOT_ADJUSTABLE, deliverable);
  }
  if (addAmounts(player.points, cmd.points) < 0)
    return refuse(ERRORS.ADJUSTMENT_NEGATIVE_BALANCE, `the player has ${player.points} points`);
  for (const { deliverable, amount } of cmd.deliverables) {
    const held = availableBalance(player, deliverable, env.now);
    if (addAmounts(held, amount) < 0)
      return refuse(ERRORS.ADJUSTMENT_NEGATIVE_BALANCE, `the player has ${held} ${byUid.get(deliverable)!.label}`);
  }

  const deliverables = cmd.deliverables.map((x) => grantOf(byUid.get(x.deliverable)!, x.amount));
  const levels = cmd.points > 0 ? levelsReachedAt(catalog, player, addAmounts(player.points, cmd.points)) : [];
  const clock = { timestamp: env.now, timeZone: player.timeZone ?? catalog.settings.timezone };
  const granted = effectsOfGrants(
    catalog,
    [...deliverables.filter((g) => g.amount > 0), ...levels.flatMap((l) => l.grants)],
    env,
    noEffects(),
    clock,
  );
  if (!granted.ok) return granted;
  const effects = granted.value;
  effects.points = cmd.points;
  for (const taken of deliverables.filter((g) => g.amount < 0)) {
    addBalance(effects, taken.uid, taken.amount);
    const drawn = lotsDrawn(player, taken.uid, -taken.amount, env.now);
    if (drawn.length) (effects.lots ??= []).push(...negated(drawn));
  }
  const adjusted: PlayerAdjusted = {
    playerId: cmd.playerId,
    adjustmentUid: env.newUid(),
    reason: cmd.reason,
    keyName: cmd.keyName,
    points: cmd.points,
    deliverables,
    levels,
    adjustedAt: env.now,
    effects,
  };
  // Points adjusted count on the leaderboard scopes the player is on now, as a chest's do.
  const scopes = scopedAttributes(catalog, player.attributes);
  if (scopes) adjusted.attributes = scopes;
  return ok(
    decision(
      adjusted,
      [{ stream: playerStream(cmd.playerId), events: [{ type: 'PlayerAdjusted', data: adjusted }] }],
      currencyExpiryJobs(cmd.playerId, effects.lots),
    ),
  );
};

/** A support adjustment: decided on the player's state. */
export const adjustPlayerDecider: UseCase<AdjustPlayerCommand, PlayerState, PlayerAdjusted> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideAdjustPlayer,
};
