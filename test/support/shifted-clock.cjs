/**
 * A service child's clock, set by its test (startServerProcess's `clockOffsetMs`): preloaded with
 * node's `--require`, which runs in the process and in each of its worker threads (the projector's
 * among them: `--import` would miss those), it moves `Date.now()`, `new Date()` and `Date()` the
 * `TEST_CLOCK_OFFSET_MS` milliseconds ahead of real time. Everything the service reckons by the
 * wall clock follows: business time (a league's period, a season's end, when a job is due), the
 * embedded jobs' claims, and BullMQ's delayed jobs, which its worker finds due by the timestamp it
 * passes to Redis. Timers do not, nor Redis's own expiries (BullMQ's locks): a test moves the
 * clock while the process is down, and the process runs what is overdue as it starts. Plain
 * JavaScript: loaded before tsx is. Never loaded in production.
 */
'use strict';

const offset = Number(process.env.TEST_CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;
const now = () => RealDate.now() + offset;

globalThis.Date = new Proxy(RealDate, {
  // `new Date()` is now; a date given (`new Date(ms)`, a string, fields) is that date.
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
  // `Date()` called as a function: the current time as a string.
  apply: () => new RealDate(now()).toString(),
  get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
});
