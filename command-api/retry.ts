import { WrongExpectedVersionError } from '../shared/event-store/port';

const MAX_ATTEMPTS = 50;

/**
 * Runs `attempt` again when an append met a newer stream revision, after a short random
 * pause so that contenders spread out; each attempt re-reads and re-decides on fresh state.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError) || i >= MAX_ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * i)));
    }
  }
}
