/**
 * The progress line of rebuild, verify and export: shown on a terminal only, redrawn at most once
 * per interval, with the events done, the rate, the share of the log and the time left. The piped
 * case (nothing at all on stderr) is checked on the real commands in cli-log.test.ts and cli-read-models.test.ts.
 */
import { duration, progressLine, progressReporter, waitingReporter, type ProgressWriter } from '../cli/progress';

/** A writer that says it is a terminal (or not) and keeps what is written. */
function writer(isTTY: boolean): ProgressWriter & { text: string } {
  return {
    isTTY,
    text: '',
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

const REDRAW = '\r\u001b[K';

describe('progressReporter', () => {
  it('writes nothing when its writer is not a terminal', () => {
    const out = writer(false);
    let now = 0;
    const progress = progressReporter({ label: 'export', to: 100, writer: out, now: () => now });
    now = 10_000;
    progress.update(50, 50);
    progress.done();
    expect(out.text).toBe('');
  });

  it('on a terminal, redraws one line at most once per interval, then ends it with the last figures', () => {
    const out = writer(true);
    let now = 1000;
    const progress = progressReporter({ label: 'rebuild', to: 2000, writer: out, now: () => now, intervalMs: 250 });
    now = 1100;
    progress.update(100, 100);
    expect(out.text).toBe('');
    now = 1500;
    progress.update(500, 500);
    expect(out.text).toBe(`${REDRAW}rebuild: 500 events, 1,000 events/s, position 500 of 2000 (25%), about 2 s left`);
    now = 1600;
    progress.update(600, 600);
    expect(out.text.split(REDRAW)).toHaveLength(2);
    now = 3000;
    progress.update(2000, 2000);
    progress.done();
    expect(out.text.split(REDRAW).slice(2)).toEqual([
      'rebuild: 2,000 events, 1,000 events/s, position 2000 of 2000 (100%)',
      'rebuild: 2,000 events, 1,000 events/s, position 2000 of 2000 (100%)\n',
    ]);
  });

  it('a run shorter than the interval shows nothing, not even at the end', () => {
    const out = writer(true);
    let now = 0;
    const progress = progressReporter({ label: 'export', to: 10, writer: out, now: () => now });
    now = 100;
    progress.update(10, 10);
    progress.done();
    expect(out.text).toBe('');
  });

  it('counts the share of the log from where the command started', () => {
    expect(progressLine('export', { events: 30, position: 1300, from: 1000, to: 2000, seconds: 3 })).toBe(
      'export: 30 events, 10 events/s, position 1300 of 2000 (30%), about 7 s left',
    );
    // Nothing to cover (an empty log): no share and no time left.
    expect(progressLine('export', { events: 0, position: 0, from: 0, to: 0, seconds: 1 })).toBe(
      'export: 0 events, 0 events/s',
    );
  });
});

describe('duration', () => {
  it('reads as seconds, minutes or hours', () => {
    expect([duration(0.2), duration(59), duration(125), duration(3780)]).toEqual([
      '1 s',
      '59 s',
      '2 min 5 s',
      '1 h 3 min',
    ]);
  });
});

describe('waitingReporter', () => {
  afterEach(() => jest.useRealTimers());

  it('on a terminal, shows the time waited every interval and clears its line when stopped', () => {
    jest.useFakeTimers();
    const out = writer(true);
    let now = 0;
    const stop = waitingReporter('verify: the server is replaying the log and comparing', {
      writer: out,
      now: () => now,
      intervalMs: 250,
    });
    now = 250;
    jest.advanceTimersByTime(250);
    now = 2250;
    jest.advanceTimersByTime(250);
    stop();
    jest.advanceTimersByTime(1000);
    expect(out.text).toBe(
      `${REDRAW}verify: the server is replaying the log and comparing, 1 s${REDRAW}verify: the server is replaying the log and comparing, 3 s${REDRAW}`,
    );
  });

  it('writes nothing off a terminal', () => {
    jest.useFakeTimers();
    const out = writer(false);
    const stop = waitingReporter('verify', { writer: out });
    jest.advanceTimersByTime(5000);
    stop();
    expect(out.text).toBe('');
  });
});
