/** The answer step: given what the steps decided, what the caller is told. */
import type { Award, LevelReached } from '../../../domain/events/player-events';
import { PLAYER } from '../../../test/support/player-spec';
import { answerOf } from './answer';

const cmd = { playerId: PLAYER, referenceId: 'r1' };
const award = (kind: Award['kind'], uid: string, points: number): Award => ({
  kind,
  uid,
  label: uid,
  ruleType: 'OneTimeOnly',
  rank: null,
  points,
  imageName: null,
  grants: [],
  consumed: [],
  limited: false,
});
const level = (n: number): LevelReached => ({
  uid: `l${n}`,
  label: `L${n}`,
  level: n,
  target: n * 10,
  imageName: null,
  grants: [],
});

describe('the answer step', () => {
  it('lists badges and triggers apart, the last level reached, the provision of a cost, and the caps', () => {
    const cost = { deliverableUid: 'gold', label: 'Gold', amount: 4, provisionUid: 'p1' };
    const capped = [{ period: 'Day' as const, kind: 'times' as const, limit: 2 }];
    const result = answerOf(
      cmd,
      [award('badge', 'b', 5), award('trigger', 't', 1)],
      [level(1), level(2)],
      16,
      [],
      cost,
      [],
      [],
      [],
      capped,
      [],
    );
    expect(result).toEqual({
      playerId: PLAYER,
      referenceId: 'r1',
      badges: [{ uid: 'b', label: 'b', type: 'OneTimeOnly', points: 5, imageName: null, rank: null }],
      triggers: [{ uid: 't', label: 't', points: 1 }],
      achievedLevel: { uid: 'l2', label: 'L2', level: 2, target: 20, imageName: null },
      earnedPoints: 16,
      deliverables: null,
      provisionUid: 'p1',
      streaks: null,
      missions: null,
      capped,
    });
  });

  it('names the experiments the action was decided under, and only then', () => {
    const inForce = [{ uid: 'e1', variant: 'v1' }];
    expect(answerOf(cmd, [], [], 0, [], null, [], [], [], null, inForce).experiments).toEqual(inForce);
    expect(answerOf(cmd, [], [], 0, [], null, [], [], [], null, [])).not.toHaveProperty('experiments');
  });
});
