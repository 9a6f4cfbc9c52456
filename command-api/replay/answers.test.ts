import type { ActionProcessed } from '../../domain/events/player-events';
import { initialPlayerState } from '../../domain/player/state';
import { PROVISION_FOLD } from '../../domain/provisions';
import { STOCK_FOLD } from '../../domain/stock/stock';
import { playerStream, provisionStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { catalogOfYaml } from '../../test/support/command-deps';
import type { DecideEnv } from '../decision';
import { processActionDecider } from '../process-action/decider';
import { reverseActionDecider, type ReversedAction } from '../reverse-action/decider';
import { eventAt, folded } from '../use-case';
import { ReplayAnswers } from './answers';

const catalog = catalogOfYaml(`
version: 1
actions:
  - { uid: act-train, identifier: train, points: 3 }
triggers:
  - { uid: t-first, label: First training, type: OneTimeOnly, limited: true, limit: 10, points: 0, conditions: [{ action: train }] }
  - { uid: t-second, label: Second training, type: OneTimeOnly, limited: true, limit: 10, points: 0, conditions: [{ action: train }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
`);
const env: DecideEnv = { catalog, now: 0, random: () => 0, newUid: () => 'uid' };
const PLAYER = '00000000-0000-4000-8000-000000000001';
const stock = (uid: string) => stockStream(TRIGGER_ACTIVATIONS, uid);
const stockRevisions = new Map([[stock('t-first'), { revision: 6 }]]);

describe('ReplayAnswers: a decision made again reads what its handler reads, from the replay', () => {
  it("answers an action's reads: the player as replayed at the revision before it, the referenceId not taken, the counted activations", () => {
    const player = initialPlayerState(PLAYER);
    const counted = new Map([
      ['t-first', 4],
      ['t-second', 0],
    ]);
    const answers = new ReplayAnswers({ counted: (uid) => counted.get(uid) }, stockRevisions);
    const command = { playerId: PLAYER, referenceId: 'r1', name: 'train', timestamp: 0, multiplier: 1, details: [] };

    const state = answers.stateOf(processActionDecider, command, env, player, 41, null);

    expect(state.player).toBe(player);
    expect(state.playerRevision).toBe(41);
    expect(state.referenceTaken).toBe(false);
    expect(state.activationsTaken.get('t-first')).toBe(4);
    expect(state.activationsTaken.get('t-second')).toBe(0);
  });

  it("answers a reversal's reads: the referenceId's record and the action it names are the action as replayed", () => {
    const player = initialPlayerState(PLAYER);
    const taken = { referenceId: 'r1', actionName: 'train', timestamp: 5 } as ReversedAction;
    const answers = new ReplayAnswers({ counted: () => undefined }, stockRevisions);

    const state = answers.stateOf(
      reverseActionDecider,
      { playerId: PLAYER, referenceId: 'r1', name: 'train' },
      env,
      player,
      7,
      taken,
    );

    expect(state.reference).toMatchObject({ playerId: PLAYER, reversed: false });
    expect(state.player).toBe(player);
    expect(state.original).toBe(taken);
  });

  it('throws on a read it holds nothing for, naming the stream, rather than answering it wrong', () => {
    const answers = new ReplayAnswers({ counted: () => 0 }, stockRevisions);
    const player = initialPlayerState(PLAYER);
    const reading = (stream: string, fold: typeof STOCK_FOLD | typeof PROVISION_FOLD) => ({
      *read() {
        return yield* folded<unknown>(stream, fold);
      },
    });
    const command = { playerId: PLAYER, referenceId: 'r1' };
    expect(() =>
      answers.stateOf(reading(provisionStream('p1'), PROVISION_FOLD), command, env, player, 0, null),
    ).toThrow('the replay cannot answer a read of provision-p1');
    const other = playerStream('00000000-0000-4000-8000-000000000002');
    expect(() => answers.stateOf(reading(other, STOCK_FOLD), command, env, player, 0, null)).toThrow(other);
    // A limited trigger's stock the replay counts none of: the replay counts every one the handler reads.
    const uncounted = new ReplayAnswers({ counted: () => undefined }, stockRevisions);
    expect(() => uncounted.stateOf(reading(stock('t-first'), STOCK_FOLD), command, env, player, 0, null)).toThrow(
      stock('t-first'),
    );
    // The action a reversal takes back is read only where the record names it.
    const atRevision = {
      *read() {
        return yield* eventAt(playerStream(PLAYER), 3);
      },
    };
    expect(() =>
      answers.stateOf(atRevision, command, env, player, 0, { referenceId: 'r1' } as ActionProcessed),
    ).toThrow(playerStream(PLAYER));
  });
});
