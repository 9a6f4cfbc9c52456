/** The registration step of a decision: an unknown player is registered by their first action, where the catalog says so. */
import { addAmounts } from '../../../domain/amount';
import type { Catalog } from '../../../domain/catalog/schema';
import type { PlayerRegistered } from '../../../domain/events/player-events';
import type { PlayerView } from '../../../domain/player/state';
import type { Result } from '../../../domain/result';
import type { DecisionEnv } from '../../../domain/rules/decision-env';
import { registrationOf } from '../../register-player/decider';

/** The registration the action makes (refused or not), or null: the player is known, or the catalog does not register on actions. */
export function autoRegistration(
  catalog: Catalog,
  player: PlayerView,
  playerId: string,
  env: DecisionEnv,
): Result<PlayerRegistered> | null {
  return !player.registered && catalog.settings.autoRegisterPlayers
    ? registrationOf(catalog, player, playerId, env)
    : null;
}

/**
 * The player as the action finds them once registered: with what the registration grants (which
 * can pay the action's cost) and the levels it reaches (not granted again by the action).
 */
export function registeredPlayer(player: PlayerView, registered: PlayerRegistered): PlayerView {
  const balances = new Map(player.balances);
  for (const b of registered.effects.balances)
    balances.set(b.deliverableUid, addAmounts(balances.get(b.deliverableUid) ?? 0, b.amount));
  return {
    ...player,
    balances,
    levelsReached: new Map([...player.levelsReached, ...registered.levels.map((l) => [l.uid, l.level] as const)]),
  };
}
