import pino from 'pino';

export type Logger = pino.Logger;

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
    },
    destination,
  );
}
