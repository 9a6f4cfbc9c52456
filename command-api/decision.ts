/**
 * The one contract of every decider: `(command, state, env) => Result<Decision<Answer>>`. No
 * I/O here: a decider is given the state (its own fields read-only), and everything of the outside world it needs
 * (the time, randomness, new uids, the catalog) comes in one DecideEnv.
 */
import type { Catalog } from '../domain/catalog/schema';
import type { DomainEvent } from '../domain/events';
import type { JobPayload } from '../shared/adapters/jobs/port';
import type { Result } from '../domain/result';
import type { DecisionEnv } from '../domain/rules/decision-env';
import type { DeepReadonly } from '../domain/deep-readonly';

/** The events a decision appends to one stream. */
export interface StreamWrite {
  stream: string;
  events: DomainEvent[];
  /**
   * Default: the revision the command read (the stream must have been read). `'any'` for
   * writes that no concurrent change can make wrong: units given back to a stock, a
   * provision's status (its player's stream, in the same append, orders its changes).
   */
  expectedRevision?: 'any' | 'no_stream';
}

/** Business-time work a decision needs, scheduled before the append so that no crash can leave the state without it. */
export interface ScheduledJob {
  type: string;
  id: string;
  /** Unix ms. */
  runAt: number;
  payload: JobPayload;
  /**
   * A job many decisions name alike (a league period's settlement, named by every entry into the
   * period): each process schedules it once (by id and time), not once per decision, whose
   * schedule would be a write of the job store in every such command.
   */
  oncePerProcess?: true;
}

/** What a decider decided: the events per stream, the jobs they need, and the answer to the client. */
export interface Decision<Answer> {
  writes: StreamWrite[];
  jobs: ScheduledJob[];
  answer: Answer;
}

export const decision = <Answer>(
  answer: Answer,
  writes: StreamWrite[],
  jobs: ScheduledJob[] = [],
): Decision<Answer> => ({ writes, jobs, answer });

/** The outside world every decider sees: one clock reading, randomness, new uids, and the published catalog. */
export interface DecideEnv extends DecisionEnv {
  catalog: Catalog;
}

/** A decider: pure, given the state it decides on (read-only) and the outside world it needs. */
export type Decider<Command, State, Answer> = (
  command: Command,
  state: DeepReadonly<State>,
  env: DecideEnv,
) => Result<Decision<Answer>>;
