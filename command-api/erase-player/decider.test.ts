import { noEffects } from '../../domain/events/common';
import { playerStream } from '../../domain/streams';
import { deciderSpec, readPlayer } from '../../test/support/decider-spec';
import { catalogOf, PLAYER, T0, testEnv } from '../../test/support/player-spec';
import { processActionDecider } from '../process-action/decider';
import { registerPlayerDecider, registrationOf } from '../register-player/decider';
import { erasePlayerDecider } from './decider';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: login }]
`);
const env = { ...testEnv(T0), catalog };
const registered = {
  type: 'PlayerRegistered' as const,
  data: (() => {
    const r = registrationOf(catalog, readPlayer({}, PLAYER), PLAYER, env, 'Ada');
    if (!r.ok) throw new Error('registration refused');
    return r.value;
  })(),
};
const erased = { type: 'PlayerErased' as const, data: { playerId: PLAYER, erasedAt: T0, effects: noEffects() } };

const erasing = deciderSpec(erasePlayerDecider);
const registering = deciderSpec(registerPlayerDecider);
const processing = deciderSpec(processActionDecider);

describe("a player's erasure", () => {
  it('given a registered player, writes PlayerErased with no personal data and no effects', () => {
    erasing
      .given({ [playerStream(PLAYER)]: [registered] })
      .when({ playerId: PLAYER }, env)
      .thenWrites({ [playerStream(PLAYER)]: [erased] });
  });

  it('given an unknown or an erased player, refuses 5003', () => {
    erasing.given({}).when({ playerId: PLAYER }, env).thenFails(5003);
    erasing
      .given({ [playerStream(PLAYER)]: [registered, erased] })
      .when({ playerId: PLAYER }, env)
      .thenFails(5003);
  });

  it('given an erased player, neither create nor a first action registers the id again', () => {
    const given = { [playerStream(PLAYER)]: [registered, erased] };
    registering.given(given).when({ playerId: PLAYER, username: 'again' }, env).thenFails(5003);
    processing
      .given(given)
      .when({ name: 'login', playerId: PLAYER, referenceId: 'r1', timestamp: T0, multiplier: 1, details: [] }, env)
      .thenFails(5003);
  });
});
