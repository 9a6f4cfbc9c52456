import { z } from 'zod';
import { runUseCase } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { currencyExpiryJobId, EXPIRE_CURRENCY, expireCurrencyDecider } from './decider';

/** The job; idempotent: it decides on the player's current state, so a rerun finds nothing expired left. */
export async function expireCurrency(playerId: string, expiresAt: number, deps: CommandDeps): Promise<void> {
  const jobId = currencyExpiryJobId(playerId, expiresAt);
  // Found early: run again when it is time.
  if (deps.now() < expiresAt) return deps.jobs.schedule(EXPIRE_CURRENCY, jobId, expiresAt, { playerId, expiresAt });
  const origin = { metadata: jobMetadata(jobId, deps), idempotency: null };
  const outcome = await runUseCase(deps, expireCurrencyDecider, { playerId }, origin);
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
