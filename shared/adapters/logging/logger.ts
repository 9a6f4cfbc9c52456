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
/** At exit, how long a full pipe is waited for before what is left is dropped: an exit is never held up for long. */
const EXIT_WAIT_MS = 2_000;

/**
 * Log lines written to a file descriptor in batches: the lines of one turn of the event loop in one
 * synchronous write at the end of that turn, so a request's log line costs no system call of its own.
 * Writes are synchronous on purpose: an asynchronous write still on libuv's threads when the process
 * exits may be cut anywhere, and what follows it would then be written after half a line.
 * Logging never blocks or stops the service: lines that cannot be written (a full disk: ENOSPC, a
 * closed pipe, too many waiting) are dropped and counted in `dropped` (the service's
 * log_lines_dropped_total), and the next lines are tried again. A full pipe (EAGAIN) is tried again
 * shortly. What is still waiting when the process exits is written then.
 */
export class LogDestination implements pino.DestinationStream {
  /** Lines dropped since the start. */
  dropped = 0;
  /** Lines not yet handed to a write. */
  private waiting: string[] = [];
  private waitingBytes = 0;
  /** Bytes of a write the output took only part of (or refused for now), and where each of their lines ends. */
  private unwritten: { bytes: Buffer; lineEnds: number[] } | null = null;
  /** Whether a write is already due (at the end of this turn, or after a refusal). */
  private due = false;

  constructor(
    private readonly fd: number,
    private readonly format: (line: string) => string = (line) => line,
  ) {
    process.on('exit', () => this.writeAtExit());
  }

  write(line: string): void {
    const text = this.format(line);
    const bytes = Buffer.byteLength(text);
    if (this.waitingBytes + (this.unwritten?.bytes.length ?? 0) + bytes > MAX_WAITING_BYTES) {
      this.dropped++;
      return;
    }
    this.waiting.push(text);
    this.waitingBytes += bytes;
    if (!this.due) {
      this.due = true;
      setImmediate(() => this.writeDue());
    }
  }

  private writeDue(): void {
    this.due = false;
    if (this.writeAll() === 'refused') {
      this.due = true;
      setTimeout(() => this.writeDue(), RETRY_AFTER_MS).unref();
    }
  }

  /** Writes what waits: 'refused' when a full pipe takes no more for now (what is left stays to be written). */
  private writeAll(): 'written' | 'refused' {
    while (this.unwritten || this.waiting.length > 0) {
      const batch = this.unwritten ?? this.takeWaiting();
      this.unwritten = batch;
      try {
        const written = fs.writeSync(this.fd, batch.bytes);
        this.unwritten =
          written < batch.bytes.length
            ? {
                bytes: batch.bytes.subarray(written),
                lineEnds: batch.lineEnds.filter((end) => end > written).map((end) => end - written),
              }
            : null;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EBUSY') return 'refused';
        this.dropped += batch.lineEnds.length;
        this.unwritten = null;
      }
    }
    return 'written';
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

  /** At exit: what waits is written now; a full pipe is waited for a little, then what is left is dropped. */
  private writeAtExit(): void {
    const giveUpAt = Date.now() + EXIT_WAIT_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (this.writeAll() === 'refused') {
      if (Date.now() >= giveUpAt) {
        this.dropped += (this.unwritten?.lineEnds.length ?? 0) + this.waiting.length;
        return;
      }
      Atomics.wait(pause, 0, 0, RETRY_AFTER_MS);
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
