/** The service's logger: pino, JSON lines, or readable lines for a person at a terminal. */
import fs from 'node:fs';
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

/** Readable lines (time, level, message, then the fields) from pino's JSON lines; colours only when `colorize` (a terminal). */
export function prettyLines(colorize: boolean): (line: string) => string {
  return pretty.prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

/** Bytes of lines waiting for the disk (or pipe) beyond which new lines are dropped: a slow or stuck output costs bounded memory. */
const MAX_WAITING_BYTES = 8 * 1024 * 1024;
/** How long a write refused for now (EAGAIN: a full pipe) waits before it is tried again. */
const RETRY_AFTER_MS = 10;

/**
 * Log lines written to a file descriptor, asynchronously (on libuv's threads, the lines of one turn
 * of the event loop in one write), so a request's log line costs the main thread no system call.
 * Logging never blocks or stops the service: lines that cannot be written (a full disk: ENOSPC, a
 * closed pipe, too many waiting) are dropped and counted in `dropped` (the service's
 * log_lines_dropped_total), and the next lines are tried again. What is still waiting when the
 * process exits is written then, once, synchronously.
 */
export class LogDestination implements pino.DestinationStream {
  /** Lines dropped since the start. */
  dropped = 0;
  /** Lines waiting for the write in flight to end. */
  private waiting: string[] = [];
  private waitingBytes = 0;
  /** The write in flight: its bytes not yet written and where each of its lines ends in them. */
  private inFlight: { bytes: Buffer; lineEnds: number[] } | null = null;

  constructor(
    private readonly fd: number,
    private readonly format: (line: string) => string = (line) => line,
  ) {
    process.on('exit', () => this.writeWaitingSync());
  }

  write(line: string): void {
    const text = this.format(line);
    const bytes = Buffer.byteLength(text);
    if (this.waitingBytes + (this.inFlight?.bytes.length ?? 0) + bytes > MAX_WAITING_BYTES) {
      this.dropped++;
      return;
    }
    this.waiting.push(text);
    this.waitingBytes += bytes;
    if (!this.inFlight) this.writeWaiting();
  }

  private takeWaiting(): { bytes: Buffer; lineEnds: number[] } {
    const lineEnds: number[] = [];
    let end = 0;
    for (const text of this.waiting) lineEnds.push((end += Buffer.byteLength(text)));
    const bytes = Buffer.from(this.waiting.join(''));
    this.waiting = [];
    this.waitingBytes = 0;
    return { bytes, lineEnds };
  }

  private writeWaiting(): void {
    this.inFlight = this.takeWaiting();
    this.writeInFlight();
  }

  private writeInFlight(): void {
    const flight = this.inFlight!;
    fs.write(this.fd, flight.bytes, (error, written) => {
      if (error && (error.code === 'EAGAIN' || error.code === 'EBUSY')) {
        setTimeout(() => this.writeInFlight(), RETRY_AFTER_MS).unref();
        return;
      }
      if (error) this.dropped += flight.lineEnds.length;
      else if (written < flight.bytes.length) {
        // A part written (a pipe takes what it has room for): the rest goes next.
        this.inFlight = {
          bytes: flight.bytes.subarray(written),
          lineEnds: flight.lineEnds.filter((end) => end > written).map((end) => end - written),
        };
        this.writeInFlight();
        return;
      }
      this.inFlight = null;
      if (this.waiting.length > 0) this.writeWaiting();
    });
  }

  /** At exit: one synchronous try for the waiting lines (the write in flight, if any, is already on its way). */
  private writeWaitingSync(): void {
    if (this.waiting.length === 0) return;
    let { bytes, lineEnds } = this.takeWaiting();
    try {
      while (bytes.length > 0) {
        const written = fs.writeSync(this.fd, bytes);
        bytes = bytes.subarray(written);
        lineEnds = lineEnds.filter((end) => end > written).map((end) => end - written);
      }
    } catch {
      this.dropped += lineEnds.length;
    }
  }
}

/** Lines `log` could not write and dropped (0 when it does not write through a LogDestination). */
export function droppedLogLines(log: Logger): number {
  const destination = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  return destination instanceof LogDestination ? destination.dropped : 0;
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

/** The process's logger on stdout, in `format` (see LogDestination). */
export function createStdoutLogger(level: string, format: LogFormat): Logger {
  return createLogger(
    level,
    new LogDestination(1, format === 'pretty' ? prettyLines(process.stdout.isTTY === true) : undefined),
  );
}
