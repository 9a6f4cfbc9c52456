/**
 * Progress of long commands on stderr, for a person watching a terminal: events done, the rate,
 * how far through the log and the time left. Off a terminal (a pipe, a file, a script) nothing is
 * written, so stdout and stderr stay machine-readable.
 */

/** Where progress goes: stderr unless a test gives its own; written to only when it is a terminal. */
export interface ProgressWriter {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** The command, first on the line. */
  label: string;
  /** The log positions covered: after `from` (exclusive) up to `to`; time left is estimated from the share reached. */
  from?: number;
  to: number;
  writer?: ProgressWriter;
  now?: () => number;
  /** Least time between two lines, so a fast replay does not spend its time drawing. */
  intervalMs?: number;
}

export interface Progress {
  /** `events` read so far, and the log position reached. */
  update(events: number, position: number): void;
  /** The last figures, on a line of their own; nothing when no line was shown (a short run). */
  done(): void;
}

const DEFAULT_INTERVAL_MS = 250;
/** Back to the line's start and clear it: each update redraws one line. */
const REDRAW = '\r\u001b[K';

const quiet: Progress = { update: () => undefined, done: () => undefined };

export function progressReporter(options: ProgressOptions): Progress {
  const writer = options.writer ?? process.stderr;
  if (!writer.isTTY) return quiet;
  const now = options.now ?? (() => performance.now());
  const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const from = options.from ?? 0;
  const started = now();
  let drawnAt = started;
  let shown = false;
  let last = { events: 0, position: from };
  const draw = (at: number) => {
    writer.write(
      REDRAW + progressLine(options.label, { ...last, from, to: options.to, seconds: (at - started) / 1000 }),
    );
    drawnAt = at;
    shown = true;
  };
  return {
    update(events, position) {
      last = { events, position };
      const at = now();
      if (at - drawnAt >= interval) draw(at);
    },
    done() {
      if (!shown) return;
      draw(now());
      writer.write('\n');
    },
  };
}

/** `export: 12,000 events, 4,000 events/s, position 12000 of 48000 (25%), about 9 s left`. */
export function progressLine(
  label: string,
  p: { events: number; position: number; from: number; to: number; seconds: number },
): string {
  const parts = [`${label}: ${p.events.toLocaleString('en-US')} events`];
  if (p.seconds > 0) parts.push(`${Math.round(p.events / p.seconds).toLocaleString('en-US')} events/s`);
  const span = p.to - p.from;
  if (span > 0) {
    const share = Math.min(1, Math.max(0, (p.position - p.from) / span));
    parts.push(`position ${p.position} of ${p.to} (${Math.floor(share * 100)}%)`);
    if (share > 0 && share < 1) parts.push(`about ${duration((p.seconds * (1 - share)) / share)} left`);
  }
  return parts.join(', ');
}

/** Seconds as a person reads them: `9 s`, `2 min 5 s`, `1 h 3 min`. */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * For work done elsewhere that reports nothing until it ends (a verification the server runs):
 * the time waited so far, redrawn every `intervalMs`, on a terminal only. Returns the stop.
 */
export function waitingReporter(
  label: string,
  options: { writer?: ProgressWriter; now?: () => number; intervalMs?: number } = {},
): () => void {
  const writer = options.writer ?? process.stderr;
  if (!writer.isTTY) return () => undefined;
  const now = options.now ?? (() => performance.now());
  const started = now();
  let shown = false;
  const timer = setInterval(() => {
    writer.write(`${REDRAW}${label}, ${duration((now() - started) / 1000)}`);
    shown = true;
  }, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  // A progress line never keeps the process alive.
  timer.unref();
  return () => {
    clearInterval(timer);
    if (shown) writer.write(REDRAW);
  };
}
