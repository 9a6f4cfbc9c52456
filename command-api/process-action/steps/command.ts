/** The command an action is decided on: the decider and each of its steps read it (decider.ts exports it as the use case's). */
export interface ProcessActionCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  referenceId: string;
  name: string;
  /** Unix ms the rules use. */
  timestamp: number;
  multiplier: number;
  details: { name: string; value: string }[];
}
