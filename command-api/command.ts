/**
 * Every command runs the same pipeline:
 *
 *   read the streams the decision needs -> decide (pure) -> ONE atomic append to every stream
 *   the decision writes, each at the revision that was read -> on a revision conflict, read
 *   and decide again (bounded, with jitter) -> answer.
 *
 * A command's effects are all recorded or none are: a crash before the append leaves no trace
 * (a retry processes the request), a crash after it leaves everything (a retry sees it).
 */
import {
  WrongExpectedVersionError,
  type EventMetadata,
  type ExpectedRevision,
  type StreamAppend,
} from '../shared/adapters/event-store/port';
import { ERRORS, refuse } from '../domain/errors';

import type { IdempotencyKey, IdempotentRequest, IdempotentRequestStart } from '../domain/events/idempotency-events';
import { idempotencyEventOf, type IdempotencyEvent, type Recorded } from '../domain/events';
import { newEventId } from '../domain/ids';
import { conflict, ok, type ConflictFailure, type Failure, type Result } from '../domain/result';
import { idempotencyStream } from '../domain/streams';
import { decisionEnv, type CommandDeps, type CommandOrigin } from './deps';
import type { UseCase } from './use-case';
import { StreamReads } from './reads';
import { decision, type Decision, type ScheduledJob, type StreamWrite } from './decision';

/** A decision made: its answer, and the log position of what it appended (absent: it appended nothing). */
export interface Decided<Answer> {
  answer: Answer;
  position?: number;
  /** The recorded answer of an earlier request with the same Idempotency-Key. */
  replayed?: true;
}

/** What a command comes to: its decision made, a refusal, or a conflict (it lost every race). */
export type CommandResult<Answer> = Result<Decided<Answer>, Failure | ConflictFailure>;

/** Attempts of one command before it answers 503: each lost a race for one of its streams. */
export const MAX_ATTEMPTS = 50;

/**
 * Runs a command: `attempt` reads through the given StreamReads and returns the decider's
 * decision; the pipeline appends it atomically, re-running `attempt` on a conflict. `metadata`
 * goes on every event appended (a function of the answer where that decides it; null for a refusal).
 *
 * With an Idempotency-Key, the key's record is read first: a recorded request is answered as it
 * was (replayed), and the record of this one is part of the same append as its effects. Domain
 * refusals are recorded too (the retry of a refused purchase is refused the same way); a conflict
 * (every attempt lost a race) changed nothing and is not recorded, so the retry runs.
 */
export async function runCommand<Answer>(
  deps: CommandDeps,
  metadata: EventMetadata | ((answer: Answer | null) => EventMetadata),
  attempt: (read: StreamReads) => Promise<Result<Decision<Answer>>>,
  idempotency: IdempotencyKey | null = null,
): Promise<CommandResult<Answer>> {
  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    const read = new StreamReads(deps);
    if (idempotency) {
      const earlier = await recordedAnswer<Answer>(read, idempotency, deps);
      if (earlier) return earlier;
    }
    const decided = checked(await attempt(read), read);
    if (!decided.ok && !idempotency) return decided;
    const { writes, jobs, answer } = decided.ok ? decided.value : { writes: [], jobs: [], answer: null };
    const outcome: IdempotentRequest['outcome'] = decided.ok
      ? { ok: true, answer }
      : { ok: false, code: decided.failure.code, message: decided.failure.message };
    const all = idempotency ? [...writes, recordOf(idempotency, outcome, deps.now())] : writes;
    if (all.length === 0) return decided.ok ? ok({ answer: decided.value.answer }) : decided;
    for (const job of jobs) await schedule(deps, job);
    // A refusal recorded under its Idempotency-Key has no answer to take metadata from.
    const meta = typeof metadata === 'function' ? metadata(decided.ok ? decided.value.answer : null) : metadata;
    try {
      const position = await appendWrites(deps, read, all, meta);
      // Scheduled before the append, so that a crash between the two loses no job; a job already due
      // may have run while the append was on its way and found nothing to do yet: it runs once more.
      for (const job of jobs) if (job.runAt <= deps.now() && !job.oncePerProcess) await schedule(deps, job);
      return decided.ok ? ok({ answer: decided.value.answer, position }) : decided;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      // Contenders spread out: each waits a little longer, at random, before reading again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * n)));
    }
  }
  return { ok: false, failure: conflict(MAX_ATTEMPTS) };
}

/**
 * Runs a use case (its decider object): its reads answered from the streams, its decision on
 * what they folded, with one reading of the clock for all its attempts.
 */
export function runUseCase<Command, State, Answer>(
  deps: CommandDeps,
  useCase: UseCase<Command, State, Answer>,
  command: Command,
  origin: CommandOrigin,
): Promise<CommandResult<Answer>> {
  const env = decisionEnv(deps);
  let inForce = deps.catalog();
  return runCommand(
    deps,
    () => ({ ...origin.metadata, catalogVersion: inForce.version }),
    async (read) => {
      // The catalog in force at each attempt (a newer one may be since the first), read once for
      // both the decision and the version its events name.
      inForce = deps.catalog();
      const attemptEnv = { ...env, catalog: inForce.catalog };
      return useCase.decide(command, await read.run(useCase.read(command, attemptEnv)), attemptEnv);
    },
    origin.idempotency,
  );
}

/**
 * The one way events are written: a decision's writes in one atomic append, each event with a new
 * id and the metadata, each stream at the revision `read` noted (or as the write says), then taken
 * into the state caches. Throws WrongExpectedVersionError when a stream moved since it was read.
 * Returns the log position of the append.
 */
export async function appendWrites(
  deps: Pick<CommandDeps, 'events' | 'states'>,
  read: StreamReads,
  writes: readonly StreamWrite[],
  metadata: EventMetadata,
): Promise<number> {
  const appends = writes.map((w): StreamAppend => ({
    stream: w.stream,
    events: w.events.map((e) => ({ id: newEventId(), type: e.type, data: e.data, metadata })),
    expectedRevision: expectedOf(w, read),
  }));
  const result = await deps.events.appendToStreams(appends);
  read.absorb(appends, result.revisions);
  return result.position;
}

/**
 * The answer recorded under an Idempotency-Key that is still honoured: replayed when the request
 * is the same, 1003 when another request reuses the key; null when there is none (a request of
 * several commands that has only started counts as none for its own record, and as the key's
 * request for any other). The record is the last write of its append, so its position is the append's.
 */
export async function recordedAnswer<Answer>(
  read: StreamReads,
  idempotency: IdempotencyKey,
  deps: CommandDeps,
): Promise<Result<Decided<Answer>> | null> {
  return answerOf<Answer>(await lastOfKey(read, idempotency), idempotency, deps);
}

async function lastOfKey(read: StreamReads, idempotency: IdempotencyKey): Promise<Recorded<IdempotencyEvent> | null> {
  const last = (await read.stream(idempotencyStream(idempotency.keyName, idempotency.key))).at(-1);
  return last ? idempotencyEventOf(last) : null;
}

function answerOf<Answer>(
  recorded: Recorded<IdempotencyEvent> | null,
  idempotency: IdempotencyKey,
  deps: CommandDeps,
): Result<Decided<Answer>> | null {
  if (!recorded) return null;
  if (recorded.type === 'IdempotentRequestStarted')
    return recorded.data.fingerprint === idempotency.fingerprint ? null : refuse(ERRORS.KEY_REUSED);
  if (deps.now() - recorded.data.recordedAt > deps.idempotencyRetentionMs) return null;
  if (recorded.data.fingerprint !== idempotency.fingerprint) return refuse(ERRORS.KEY_REUSED);
  const { outcome } = recorded.data;
  // Written from this command's own answer type: the one place it is read back untyped.
  if (outcome.ok) return ok({ answer: outcome.answer as Answer, position: recorded.position, replayed: true });
  return { ok: false, failure: { code: outcome.code, message: outcome.message, replayed: true } };
}

function recordOf(idempotency: IdempotencyKey, outcome: IdempotentRequest['outcome'], now: number): StreamWrite {
  const data: IdempotentRequest = {
    keyName: idempotency.keyName,
    idempotencyKey: idempotency.key,
    fingerprint: idempotency.fingerprint,
    outcome,
    recordedAt: now,
  };
  return {
    stream: idempotencyStream(idempotency.keyName, idempotency.key),
    events: [{ type: 'IdempotentRequestRecorded', data }],
  };
}

/** Each stream's own check of what a decision writes to it, against the state it was decided on. */
function checked<Answer>(decided: Result<Decision<Answer>>, read: StreamReads): Result<Decision<Answer>> {
  if (!decided.ok) return decided;
  const refused = refusedWrite(decided.value.writes, read);
  return refused ? { ok: false, failure: refused } : decided;
}

/** The jobs of `oncePerProcess` each job store was given by this process, as `id@runAt`. */
const scheduledOnce = new WeakMap<object, Set<string>>();

/** Schedules a decision's job; one `oncePerProcess` only the first time this process names it. */
async function schedule(deps: Pick<CommandDeps, 'jobs'>, job: ScheduledJob): Promise<void> {
  if (!job.oncePerProcess) return deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
  let done = scheduledOnce.get(deps.jobs);
  if (!done) scheduledOnce.set(deps.jobs, (done = new Set()));
  const key = `${job.id}@${job.runAt}`;
  if (done.has(key)) return;
  await deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
  done.add(key);
}

/** The first refusal of the streams' own checks of what is written to them (null: every write may be stored). */
export function refusedWrite(writes: readonly StreamWrite[], read: StreamReads): Failure | null {
  for (const write of writes) {
    const refused = read.check(write.stream, write.events);
    if (refused) return refused;
  }
  return null;
}

function expectedOf(write: StreamWrite, read: StreamReads): ExpectedRevision {
  if (write.expectedRevision) return write.expectedRevision;
  const revision = read.revisions.get(write.stream);
  if (revision === undefined) throw new Error(`a decision writes ${write.stream} without having read it`);
  return revision === -1 ? 'no_stream' : revision;
}

/** How long a duplicate of a request of several commands waits for the running one's answer before answering 503. */
export const DUPLICATE_WAIT_MS = 30_000;
/** A start this old without an answer is of a request that died mid-way (a crash): a retry then runs it. */
export const ABANDONED_AFTER_MS = 120_000;
const DUPLICATE_POLL_MS = 25;

/**
 * A request of several commands (nested actions) cannot record its Idempotency-Key in each
 * command's append: the key is taken before the first (an `IdempotentRequestStarted`, appended
 * only if the key's stream is as read) and its answer recorded after the last. A concurrent
 * duplicate finds the key taken and waits for that answer, then replays it: the key's answer is
 * the first request's, never a duplicate's 2601. Each action's referenceId still makes a retry
 * after a crash in between safe. Returns the answer to give instead of running, or null to run.
 */
export async function startRequest<Answer>(
  deps: CommandDeps,
  origin: CommandOrigin,
): Promise<Result<Decided<Answer>> | null> {
  const { idempotency } = origin;
  if (!idempotency) return null;
  const stream = idempotencyStream(idempotency.keyName, idempotency.key);
  for (let waited = 0; ;) {
    const read = new StreamReads(deps);
    const last = await lastOfKey(read, idempotency);
    const earlier = answerOf<Answer>(last, idempotency, deps);
    if (earlier) return earlier;
    if (last?.type === 'IdempotentRequestStarted' && deps.now() - last.data.startedAt < ABANDONED_AFTER_MS) {
      if (waited >= DUPLICATE_WAIT_MS) return refuse(ERRORS.REQUEST_IN_PROGRESS);
      await new Promise((resolve) => setTimeout(resolve, DUPLICATE_POLL_MS));
      waited += DUPLICATE_POLL_MS;
      continue;
    }
    const start: IdempotentRequestStart = {
      keyName: idempotency.keyName,
      idempotencyKey: idempotency.key,
      fingerprint: idempotency.fingerprint,
      startedAt: deps.now(),
    };
    const event = { id: newEventId(), type: 'IdempotentRequestStarted', data: start, metadata: origin.metadata };
    try {
      await deps.events.appendToStreams([
        { stream, events: [event], expectedRevision: expectedOf({ stream, events: [] }, read) },
      ]);
      return null;
    } catch (error) {
      // Another request took the key between the read and the append: wait for its answer.
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
  }
}

export function recordAnswer<Answer>(
  deps: CommandDeps,
  origin: CommandOrigin,
  outcome: Result<Answer>,
): Promise<CommandResult<Answer>> {
  return runCommand(
    deps,
    origin.metadata,
    async () => (outcome.ok ? ok(decision(outcome.value, [])) : outcome),
    origin.idempotency,
  );
}
