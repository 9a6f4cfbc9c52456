/** What the command routes answer: a command's outcome as an HTTP reply. */
import type { Reply } from '../shared/adapters/http/route';
import type { Result } from '../shared/domain/result';
import type { Decided } from './command';

/** The HTTP reply of a command: its answer shaped for the wire, its position, and whether it was replayed. */
export function replyOf<Answer>(decided: Result<Decided<Answer>>, shape: (answer: Answer) => unknown): Reply {
  if (!decided.ok) return decided;
  const { answer, position, replayed } = decided.value;
  return { ok: true, value: shape(answer), position, ...(replayed ? { replayed } : {}) };
}
