/** The service's logger: pino, JSON lines. */
import pino from 'pino';

export type Logger = pino.Logger;

/**
 * An error as a log line shows it: its class, message and code, never its stack (no log line
 * carries a stack trace: it would show internals, and a message can never be made to carry one).
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  return { type: error.name || error.constructor.name, message: error.message, ...(code === undefined ? {} : { code }) };
}

/**
 * Structured JSON logs. Headers and bodies are never logged whole, and the redact list
 * catches the places a key could still slip in.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gamification' },
      redact: { paths: ['authKey', 'authorization', 'key', '*.authKey', '*.authorization', '*.key', 'headers'], censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}
