import { z } from 'zod';
import { runCommand } from '../command';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { currencyExpiryJobId, decideExpireCurrency, EXPIRE_CURRENCY } from './decider';

/** The job; idempotent: it decides on the player's current state, so a rerun finds nothing expired left. */
export async function expireCurrency(playerId: string, expiresAt: number, deps: CommandDeps): Promise<void> {
  const jobId = currencyExpiryJobId(playerId, expiresAt);
  // Found early: run again when it is time.
  if (deps.now() < expiresAt) return deps.jobs.schedule(EXPIRE_CURRENCY, jobId, expiresAt, { playerId, expiresAt });
  const outcome = await runCommand(deps, jobMetadata(jobId, deps), async (read) => {
    const { state } = await read.player(playerId);
    return decideExpireCurrency({ playerId }, state, decisionEnv(deps));
  });
  // Contended through every attempt: thrown, so that the job runs again.
  if (!outcome.ok) throw new Error(`expiring currency of ${playerId}: ${outcome.failure.message}`);
}

const expiryPayload = z.object({ playerId: z.string(), expiresAt: z.number() });

export function registerCurrencyJobs(deps: CommandDeps): void {
  deps.jobs.handle(EXPIRE_CURRENCY, async (payload) => {
    const { playerId, expiresAt } = expiryPayload.parse(payload);
    await expireCurrency(playerId, expiresAt, deps);
  });
}
