/** The service's logger: pino, JSON lines, or readable lines for a person at a terminal. */
import pino from 'pino';
import pretty from 'pino-pretty';

export type Logger = pino.Logger;

/** LOG_FORMAT: `pretty` or `json` force a format; unset, it follows whether stdout is a terminal. */
export type LogFormat = 'pretty' | 'json';

/** The format logs are written in: the one asked for, else readable lines on a terminal only (a pipe or file gets JSON). */
export function effectiveLogFormat(asked: LogFormat | null, stdoutIsTerminal: boolean): LogFormat {
  return asked ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/**
 * An error as a log line shows it: its class, message and code, never its stack (no log line
 * carries a stack trace: it would show internals, and a message can never be made to carry one).
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name || error.constructor.name,
    message: error.message,
    ...(code === undefined ? {} : { code }),
  };
}

/**
 * Readable lines (time, level, message, then the fields), written synchronously so the last lines
 * before an exit are not lost; colours only when `colorize` (a terminal).
 */
export function prettyDestination(options: {
  colorize: boolean;
  destination?: NodeJS.WritableStream | number;
}): pino.DestinationStream {
  return pretty({
    colorize: options.colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    destination: options.destination ?? 1,
  });
}

/**
 * Structured logs. Headers and bodies are never logged whole, and the redact list catches the
 * places a key could still slip in (it applies before either format is written).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gamification' },
      redact: {
        paths: ['authKey', 'authorization', 'key', '*.authKey', '*.authorization', '*.key', 'headers'],
        censor: '[redacted]',
      },
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}

/**
 * The process's logger on stdout, in `format`. JSON lines are written asynchronously (on libuv's
 * threads, the lines of one turn of the event loop in one write), so a request's log line costs
 * the main thread no system call; pino writes what is still pending when the process exits, and
 * only a kill -9 can lose the last writes in flight.
 */
export function createStdoutLogger(level: string, format: LogFormat): Logger {
  return createLogger(
    level,
    format === 'pretty'
      ? prettyDestination({ colorize: process.stdout.isTTY === true })
      : pino.destination({ dest: 1, sync: false }),
  );
}
