/**
 * Overview: the whole game over a range of days (of the catalog's time zone), from the daily
 * analytics series: players and actions, points, each deliverable issued against spent, levels
 * reached, the most and least awarded badges, store sales.
 */
import { get } from '../api.js';
import { categoryBarChart, csvLink, dayBarChart, dayTable, figure, lineChart } from '../charts.js';
import { field, h, section, table } from '../dom.js';

const PRESETS = [7, 30, 90];
const DAY_MS = 86_400_000;

/** This computer's date, `days` ago: the console has no clock of the catalog's zone, and operators mostly work in it. */
function localDay(daysAgo = 0) {
  const d = new Date(Date.now() - daysAgo * DAY_MS);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The range a route names: `#/overview/30` (the last 30 days) or `#/overview/2026-06-01/2026-06-30`. */
function rangeOf(args) {
  if (args.length === 2) return { from: args[0], to: args[1], preset: null };
  const days = PRESETS.includes(Number(args[0])) ? Number(args[0]) : 30;
  return { from: localDay(days - 1), to: localDay(), preset: days };
}

export function overviewPage(args) {
  const range = rangeOf(args);
  return [rangeForm(range), ...charts({ from: range.from, to: range.to })];
}

function rangeForm(range) {
  const preset = h('select', { id: 'range' }, [
    ...PRESETS.map((days) => h('option', { value: days, selected: range.preset === days }, `Last ${days} days`)),
    h('option', { value: 'dates', selected: range.preset === null }, 'Dates'),
  ]);
  const from = h('input', { id: 'range-from', type: 'date', value: range.from, required: true });
  const to = h('input', { id: 'range-to', type: 'date', value: range.to, required: true });
  const dates = [field('From', from), field('To', to, 'Both days included, at most 366')];
  const shown = () => dates.forEach((d) => (d.hidden = preset.value !== 'dates'));
  preset.addEventListener('change', shown);
  shown();
  return h(
    'form',
    {
      class: 'inline',
      onsubmit(event) {
        event.preventDefault();
        location.hash =
          preset.value === 'dates' ? `#/overview/${from.value}/${to.value}` : `#/overview/${preset.value}`;
      },
    },
    field('Range', preset, "Days of the catalog's time zone, up to this computer's today"),
    dates,
    h('button', { type: 'submit' }, 'Show'),
  );
}

/** Sums a split series' points per key over the range. */
function totalsByKey(points) {
  const totals = new Map();
  for (const p of points) totals.set(p.key, (totals.get(p.key) ?? 0) + p.value);
  return totals;
}

/** A split series as one row of values per key, over the range's days. */
function byKey(points) {
  const days = [...new Set(points.map((p) => p.day))];
  const keys = new Map();
  for (const p of points) {
    if (!keys.has(p.key)) keys.set(p.key, new Array(days.length).fill(0));
    keys.get(p.key)[days.indexOf(p.day)] = p.value;
  }
  return { days, keys };
}

function charts(range) {
  const series = (name) => get(`/v1/admin/analytics/${name}`, range);
  const activity = Promise.all([series('active-players'), series('actions'), series('points')]);
  return [
    h(
      'div',
      { class: 'columns' },
      section('Players and actions', async () => {
        const [players, actions] = await activity;
        const days = players.points.map((p) => p.day);
        const lines = [
          { label: 'Active players', values: players.points.map((p) => p.value) },
          { label: 'Actions', values: actions.points.map((p) => p.value) },
        ];
        return figure(
          'Active players and actions per day',
          lineChart(days, lines, { counts: true }),
          dayTable('Active players and actions per day', days, lines),
          [csvLink('active-players', range), csvLink('actions', range)],
        );
      }),
      section('Points', async () => {
        const [, , points] = await activity;
        const days = points.points.map((p) => p.day);
        const lines = [{ label: 'Points earned less taken back', values: points.points.map((p) => p.value) }];
        return figure(
          'Points per day',
          lineChart(days, lines),
          dayTable('Points per day', days, lines),
          csvLink('points', range),
        );
      }),
    ),
    section('Economy: issued against spent', async () => economy(await series('deliverables'), range)),
    h(
      'div',
      { class: 'columns' },
      section('Levels reached', async () => {
        const [levels, reached] = await Promise.all([get('/v1/admin/levels'), series('levels')]);
        const totals = totalsByKey(reached.points);
        const ordered = [...levels].sort((a, b) => a.level - b.level);
        const labels = ordered.map((l) => `${l.level}: ${l.label}`);
        const values = ordered.map((l) => totals.get(l.uid) ?? 0);
        return figure(
          'Levels reached in the range',
          categoryBarChart(labels, values, 'Players'),
          table(
            'Levels reached in the range',
            ['Level', 'Uid', 'Reached'],
            ordered.map((l, i) => [labels[i], h('code', {}, l.uid), values[i]]),
          ),
          csvLink('levels', range),
        );
      }),
      section('Store sales', async () => {
        const totals = totalsByKey((await series('purchases')).points);
        if (totals.size === 0) return h('p', { class: 'muted' }, 'No bundle was bought in this range.');
        const sales = [...totals].sort((a, b) => b[1] - a[1]);
        return figure(
          'Bundles bought in the range',
          categoryBarChart(
            sales.map(([uid]) => uid),
            sales.map(([, n]) => n),
            'Bought',
          ),
          table(
            'Bundles bought in the range',
            ['Bundle', 'Bought'],
            sales.map(([uid, n]) => [h('code', {}, uid), n]),
          ),
          csvLink('purchases', range),
        );
      }),
    ),
    section('Badges awarded', async () => {
      const [badges, awarded] = await Promise.all([get('/v1/admin/badges'), series('badges')]);
      const totals = totalsByKey(awarded.points);
      // Every badge of the catalog, the ones nobody reached included.
      const counts = badges.map((b) => ({ label: b.label, uid: b.uid, n: totals.get(b.uid) ?? 0 }));
      const most = [...counts].sort((a, b) => b.n - a.n || a.label.localeCompare(b.label)).slice(0, 10);
      const least = [...counts].sort((a, b) => a.n - b.n || a.label.localeCompare(b.label)).slice(0, 10);
      const rows = (list) => list.map((b) => [b.label, h('code', {}, b.uid), b.n]);
      return h(
        'div',
        { class: 'columns' },
        figure(
          'The ten most awarded badges',
          categoryBarChart(
            most.map((b) => b.label),
            most.map((b) => b.n),
            'Awarded',
          ),
          table('The ten most awarded badges', ['Badge', 'Uid', 'Awarded'], rows(most)),
          csvLink('badges', range),
        ),
        figure(
          'The ten least awarded badges',
          categoryBarChart(
            least.map((b) => b.label),
            least.map((b) => b.n),
            'Awarded',
          ),
          table('The ten least awarded badges', ['Badge', 'Uid', 'Awarded'], rows(least)),
          csvLink('badges', range),
        ),
      );
    }),
  ];
}

/** What issues a deliverable (drawn above zero) and what takes it away (below), as the `deliverables` series splits them. */
const MOVES = [
  { move: 'granted', label: 'Granted', sign: 1 },
  { move: 'refunded', label: 'Refunded', sign: 1 },
  { move: 'spent', label: 'Spent', sign: -1 },
  { move: 'expired', label: 'Expired', sign: -1 },
];

/** Per deliverable that moved in the range (currencies, chests): what was issued above zero, what was spent or expired below. */
function economy(deliverables, range) {
  const { days, keys } = byKey(deliverables.points);
  const uids = [...new Set([...keys.keys()].map((k) => k.slice(0, k.lastIndexOf(':'))))].sort();
  if (uids.length === 0) return h('p', { class: 'muted' }, 'No deliverable was issued or spent in this range.');
  const zero = new Array(days.length).fill(0);
  return h(
    'div',
    { class: 'columns' },
    uids.map((uid) => {
      const bands = MOVES.map(({ move, label, sign }) => ({
        label,
        values: (keys.get(`${uid}:${move}`) ?? zero).map((v) => sign * v),
      }));
      const title = `${uid}: issued and taken per day`;
      return figure(
        title,
        dayBarChart(days, bands),
        dayTable(`${title} (spent and expired as negative)`, days, bands),
        csvLink('deliverables', range),
      );
    }),
  );
}
