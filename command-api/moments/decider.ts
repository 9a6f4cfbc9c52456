/** A moment's job: the moment appended once it is due, if it is still true and not yet appended. */
import { evolve, type PlayerState, type SentMoment } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { nextMoment, type MomentType } from '../../domain/rules/moments';
import { playerStream } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import { playerOf } from '../player-reads';
import type { UseCase } from '../use-case';

export interface MomentCommand {
  playerId: string;
  type: MomentType;
  /** The streak's or mission's uid; '' for the player. */
  subject: string;
}

export interface MomentAnswer {
  /** The moment appended now, or null (not yet due, no longer true, or already appended). */
  appended: SentMoment | null;
  /** The subject's next moment of the type, to look at again then; null: none to come. */
  next: SentMoment | null;
}

/**
 * Decided on the player's state as the job finds it, so a streak extended at 19:59, a mission
 * completed or an action since makes it append nothing, and a rerun finds the moment appended.
 */
export const decideMoment: Decider<MomentCommand, PlayerState, MomentAnswer> = (cmd, state, env) => {
  const due = nextMoment(env.catalog, state, cmd.type, cmd.subject, env.now);
  if (due === null || due.data.dueAt > env.now) return ok(decision({ appended: null, next: due }, []));
  const after = evolve(state, { ...due, revision: -1 });
  const next = nextMoment(env.catalog, after, cmd.type, cmd.subject, env.now);
  return ok(decision({ appended: due, next }, [{ stream: playerStream(cmd.playerId), events: [due] }]));
};

/** The moment job's use case: decided on the player's state. */
export const momentDecider: UseCase<MomentCommand, PlayerState, MomentAnswer> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideMoment,
};
