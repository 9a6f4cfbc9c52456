/**
 * Charts drawn by uPlot (served by the service under /console/vendor/), each with its numbers as a
 * table for screen readers and anyone who wants them, and the CSV of the series behind it.
 */
import uPlot from './vendor/uPlot.esm.js';
import { session } from './api.js';
import { errorNote, h, table } from './dom.js';

const HEIGHT = 220;
const COLOURS = ['#0b5cad', '#a40e26', '#116329', '#8250df', '#bc4c00', '#1b7c83'];

/** A day `YYYY-MM-DD` as uPlot's x value: seconds, at that day's UTC midnight (the axis is drawn in UTC, so the label is the day). */
const dayToX = (day) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** The x axis of a chart over days: a tick per day, week or month (as many as fit), labelled by the day. */
const DAY_AXIS = {
  incrs: [86_400, 7 * 86_400, 28 * 86_400],
  values: (_u, splits) => splits.map((x) => new Date(x * 1000).toISOString().slice(5, 10)),
};
const HALF_DAY = 43_200;

/** A y axis of counts (players, actions, badges): ticks on whole numbers only, 1, 2, 5, 10, 20, 50… apart. */
const COUNT_AXIS = { incrs: Array.from({ length: 10 }, (_v, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat() };

/** A chart sized to its place once it is on the page; the canvas is decoration, the table beside it carries the numbers. */
function plot(options, data) {
  const holder = h('div', { class: 'chart', 'aria-hidden': 'true' });
  requestAnimationFrame(() => {
    if (!holder.isConnected) return;
    // The legend names the series; their values are in the table beside the chart (a live legend reads `--` until hovered).
    const legend = { live: false };
    new uPlot({ width: Math.max(280, holder.clientWidth), height: HEIGHT, legend, ...options }, data, holder);
  });
  return holder;
}

/** Lines over days: `series` is [{label, values}], each value a day's; `counts` when the values are counts. */
export function lineChart(days, series, { counts = false } = {}) {
  return plot(
    {
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [DAY_AXIS, counts ? COUNT_AXIS : {}],
      series: [
        { label: 'Day', value: (_u, x) => (x === null ? '' : new Date(x * 1000).toISOString().slice(0, 10)) },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: COLOURS[i % COLOURS.length],
          width: 2,
          points: { show: days.length <= 31 },
        })),
      ],
    },
    [days.map(dayToX), ...series.map((s) => s.values)],
  );
}

/** Bars over days, stacked above and below zero: `series` is [{label, values}]. */
export function dayBarChart(days, series) {
  // uPlot draws bars side by side: each band is drawn from the sum of those before it, so they stack.
  const stacked = series.map((s, i) =>
    s.values.map((_v, d) =>
      series
        .slice(0, i + 1)
        .reduce((sum, t) => (Math.sign(t.values[d]) === Math.sign(s.values[d]) ? sum + t.values[d] : sum), 0),
    ),
  );
  const bars = uPlot.paths.bars({ size: [0.7, 40] });
  return plot(
    {
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      // Half a day either side, so the first and last bars show whole.
      scales: { x: { time: true, range: (_u, min, max) => [min - HALF_DAY, max + HALF_DAY] } },
      axes: [DAY_AXIS, {}],
      // The outermost band first, so the nearer ones are drawn over it.
      series: [
        { label: 'Day', value: (_u, x) => (x === null ? '' : new Date(x * 1000).toISOString().slice(0, 10)) },
        ...series
          .map((s, i) => ({
            label: s.label,
            fill: COLOURS[i % COLOURS.length],
            stroke: COLOURS[i % COLOURS.length],
            paths: bars,
            points: { show: false },
          }))
          .reverse(),
      ],
    },
    [days.map(dayToX), ...stacked.reverse()],
  );
}

/** Bars by category: `labels[i]` has `values[i]`, a count. */
export function categoryBarChart(labels, values, label) {
  return plot(
    {
      scales: { x: { time: false, range: [-0.5, labels.length - 0.5] } },
      axes: [
        {
          splits: () => labels.map((_l, i) => i),
          values: () => labels.map((l) => (l.length > 14 ? `${l.slice(0, 13)}…` : l)),
          rotate: labels.length > 6 ? -30 : 0,
          size: labels.length > 6 ? 70 : 40,
        },
        COUNT_AXIS,
      ],
      series: [
        { label: '' },
        {
          label,
          fill: COLOURS[0],
          stroke: COLOURS[0],
          paths: uPlot.paths.bars({ size: [0.6, 60] }),
          points: { show: false },
        },
      ],
      legend: { show: false },
    },
    [labels.map((_l, i) => i), values],
  );
}

/** Fetches a series as CSV with the session's key and hands it to the browser as a file. */
async function downloadCsv(series, range) {
  const res = await fetch(
    `/v1/admin/analytics/${encodeURIComponent(series)}?${new URLSearchParams({ ...range, format: 'csv' })}`,
    { headers: { AuthKey: session.key() ?? '' }, cache: 'no-store' },
  );
  if (!res.ok) throw new Error((await res.json().catch(() => null))?.data ?? `HTTP ${res.status}`);
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: `${series}_${range.from}_${range.to}.csv` });
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/** A button that saves the CSV of a series over the range, saying so if it fails. */
export function csvLink(series, range) {
  const status = h('span', { 'aria-live': 'polite' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      async onclick() {
        status.replaceChildren();
        try {
          await downloadCsv(series, range);
        } catch (error) {
          status.replaceChildren(errorNote(error));
        }
      },
    },
    `CSV of ${series}`,
  );
  return h('span', { class: 'csv' }, button, status);
}

/** A chart with its title, its numbers as a table (read by screen readers in the chart's place) and its CSV. */
export function figure(title, chart, numbers, csv) {
  return h(
    'figure',
    { class: 'figure' },
    h('figcaption', {}, title),
    chart,
    h('div', { class: 'visually-hidden' }, numbers),
    csv,
  );
}

/** The numbers of a chart over days: a row per day, a column per series. */
export const dayTable = (caption, days, series) =>
  table(
    caption,
    ['Day', ...series.map((s) => s.label)],
    days.map((day, d) => [day, ...series.map((s) => s.values[d])]),
  );
