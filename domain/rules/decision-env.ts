/** What a decider needs from the outside world, passed in so deciders stay pure. */
export interface DecisionEnv {
  /** Unix ms of the decision. */
  now: number;
  /** Uniform in [0, 1), from a CSPRNG in production and a seeded source in tests. */
  random(): number;
  /** A new service uid (32 lowercase hex). */
  newUid(): string;
}
