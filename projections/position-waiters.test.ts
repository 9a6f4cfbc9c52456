import { PositionWaiters } from './position-waiters';

describe('PositionWaiters', () => {
  it('answers true once a release reaches the position, and not before', async () => {
    const waiters = new PositionWaiters();
    const answers: [number, boolean][] = [];
    for (const position of [3, 5, 8]) void waiters.wait(position, 60_000).then((r) => answers.push([position, r]));
    waiters.release(4);
    await Promise.resolve();
    expect(answers).toEqual([[3, true]]);
    waiters.release(8);
    await Promise.resolve();
    expect(answers).toEqual([
      [3, true],
      [5, true],
      [8, true],
    ]);
    expect(waiters.waiting).toBe(false);
  });

  it('answers false after the time given, or to all at once when the position will not come', async () => {
    const waiters = new PositionWaiters();
    expect(await waiters.wait(1, 10)).toBe(false);
    expect(waiters.waiting).toBe(false);
    const pending = [waiters.wait(2, 60_000), waiters.wait(3, 60_000)];
    expect(waiters.waiting).toBe(true);
    waiters.fail();
    expect(await Promise.all(pending)).toEqual([false, false]);
    expect(waiters.waiting).toBe(false);
  });
});
