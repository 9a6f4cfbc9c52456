/**
 * Tests wait on signals, not on time: a fixed sleep passes on a quiet machine and fails on a busy
 * one, or makes every run slower to prove that nothing happened. A test waits with `eventually`
 * (test/support/process.ts), an explicit signal (an event, a callback, a probe job, a witness
 * subscription) or an injected clock. The few fixed waits above 50 ms that remain are listed here
 * with their reason; a new one, or one listed that is gone, fails this test.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
/** The longest fixed wait allowed without a reason: a turn for timers and I/O, not a wait for something. */
const MAX_MS = 50;

/** `file:ms` of each fixed wait above MAX_MS that stays, and why nothing else will do. */
const ALLOWED: Record<string, string> = {
  'test/event-store.sqlite.test.ts:150':
    "a closed store's subscription stays silent: nothing can signal what a subscription that no longer runs did not do; three of its poll ticks",
  'test/feed-stalled.test.ts:200':
    'the interval of samples of memory and /health over the 10 s while clients stall: the window is what is measured',
};

/** The test files and their support, as paths from the root. */
function testFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    const file = path.relative(ROOT, full).split(path.sep).join('/');
    return file.endsWith('.test.ts') || (file.startsWith('test/') && file.endsWith('.ts')) ? [file] : [];
  });
}

/** The fixed waits of a source: an awaited timer that only resolves, or a sleep helper called with a number. */
export function fixedWaits(source: string): number[] {
  const timers = source.matchAll(/new Promise(?:<\w*>)?\(\(?(\w+)\)? => setTimeout\(\1, ([\d_]+)\)\)/g);
  const helpers = source.matchAll(/\b(?:sleep|delay|pause|wait)\(([\d_]+)\)/g);
  return [...[...timers].map((m) => m[2]), ...[...helpers].map((m) => m[1])].map((n) => Number(n.replaceAll('_', '')));
}

describe('fixed sleeps in the tests', () => {
  it(`none above ${MAX_MS} ms but those listed with their reason`, () => {
    const found = testFiles()
      .filter((file) => file !== 'test/no-fixed-sleeps.test.ts')
      .flatMap((file) =>
        fixedWaits(fs.readFileSync(path.join(ROOT, file), 'utf8'))
          .filter((ms) => ms > MAX_MS)
          .map((ms) => `${file}:${ms}`),
      );
    expect(found.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('finds a timer awaited for nothing and a sleep helper (the check can fail)', () => {
    // Text the check reads, never run: fixed waits it must find.
    const source = [
      'await new Promise((r) => setTimeout(r, 100));', // sample text for the check, never run
      'await new Promise((resolve) => setTimeout(resolve, 1_050));',
      'await new Promise<void>((resolve) => setTimeout(resolve, 20));',
      'await sleep(300);',
      'const timer = setTimeout(() => reject(new Error("late")), 60_000);',
      'await eventually(() => done, 10_000, 200);',
    ].join('\n');
    expect(fixedWaits(source)).toEqual([100, 1050, 20, 300]);
  });
});
