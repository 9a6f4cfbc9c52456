import { analyticsRoute, MAX_DAYS } from './route';
import type { ReadStore } from '../../shared/adapters/read-store/port';

const route = analyticsRoute({ store: {} as ReadStore });
const parse = (from: string, to: string) =>
  route.parse({ body: undefined, params: { series: 'actions' }, query: { from, to }, header: () => undefined });

/** Runs `work`, counting the dates it turns into text (how the route lists days). */
function datesWrittenBy<T>(work: () => T): { result: T; written: number } {
  const toISOString = Object.getOwnPropertyDescriptor(Date.prototype, 'toISOString')!;
  let written = 0;
  Object.defineProperty(Date.prototype, 'toISOString', {
    ...toISOString,
    value(this: Date) {
      written++;
      return (toISOString.value as () => string).call(this);
    },
  });
  try {
    return { result: work(), written };
  } finally {
    Object.defineProperty(Date.prototype, 'toISOString', toISOString);
  }
}

describe('the analytics range', () => {
  it('refuses an absurd range from its span alone, before listing a single day', () => {
    const { result, written } = datesWrittenBy(() => parse('0001-01-01', '9999-12-31'));
    expect(result).toEqual({
      ok: false,
      failure: expect.objectContaining({
        code: 1001,
        message: `3652059 days from 0001-01-01 to 9999-12-31: at most ${MAX_DAYS} a request`,
      }),
    });
    expect(written).toBe(0);
  });

  it('counts the span as the days it lists, leap days included', () => {
    const { result, written } = datesWrittenBy(() => parse('2024-01-01', '2024-12-31'));
    expect(result.ok && result.value.days).toHaveLength(366);
    expect(written).toBe(366);
    expect(parse('2023-03-01', '2024-03-01')).toMatchObject({
      ok: false,
      failure: { message: `367 days from 2023-03-01 to 2024-03-01: at most ${MAX_DAYS} a request` },
    });
  });
});
