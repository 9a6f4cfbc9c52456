/** The experiments of the catalog in force, and what each variant did against the control. */
import { get } from '../api.js';
import { dayTable, figure, lineChart } from '../charts.js';
import { h, link, section, table } from '../dom.js';

export function experimentsPage([uid]) {
  return uid ? results(uid) : list();
}

const share = (weight, total) => (total > 0 ? `${Math.round((weight / total) * 1000) / 10}%` : '0%');

function list() {
  return section('Experiments', async () => {
    const experiments = await get('/v1/admin/experiments');
    return table(
      'The experiments',
      ['Experiment', 'Uid', 'Status', 'Window', 'Variants (share, players joined)'],
      experiments.map((e) => {
        const total = e.variants.reduce((s, v) => s + v.weight, 0);
        return [
          link(['experiments', e.uid], e.label),
          e.uid,
          e.status,
          e.startDate || e.endDate ? `${e.startDate ?? '…'} to ${e.endDate ?? '…'}` : 'always',
          e.variants.map((v) => `${v.uid} ${share(v.weight, total)}, ${v.players}`).join(' · '),
        ];
      }),
      'none in the catalog in force.',
    );
  });
}

const METRICS = [
  ['actionsPerPlayer', 'Actions per player'],
  ['activeDaysPerPlayer', 'Active days per player'],
  ['pointsPerPlayer', 'Points per player'],
  ['spentPerPlayer', 'Spent per player'],
  ['retention.d1', 'Retention, day 1'],
  ['retention.d7', 'Retention, day 7'],
  ['retention.d30', 'Retention, day 30'],
];

const number = (n) => (n === null ? '—' : String(Math.round(n * 1000) / 1000));
const signedNumber = (n) => (n === null ? '—' : n > 0 ? `+${number(n)}` : number(n));

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/**
 * A variant's difference and 95% interval as a bar against the control (the vertical line at 0),
 * on a scale shared by the metric's variants; nothing for the control.
 */
function intervalBar(metric, low, high) {
  if (!metric.ci95) return '—';
  const WIDTH = 200;
  const MARGIN = 6;
  const x = (v) => MARGIN + ((v - low) / (high - low || 1)) * (WIDTH - 2 * MARGIN);
  const [from, to] = metric.ci95;
  const label = `difference ${signedNumber(metric.difference)}, 95% interval ${number(from)} to ${number(to)}`;
  return svg(
    'svg',
    { width: WIDTH, height: 16, viewBox: `0 0 ${WIDTH} 16`, role: 'img', 'aria-label': label, class: 'interval' },
    svg('title', {}, label),
    svg('line', { x1: x(0), x2: x(0), y1: 0, y2: 16, class: 'zero' }),
    svg('rect', { x: x(from), width: Math.max(1, x(to) - x(from)), y: 5, height: 6, class: 'range' }),
    svg('circle', { cx: x(metric.difference), cy: 8, r: 3, class: 'point' }),
  );
}

function results(uid) {
  return [
    h('p', {}, link(['experiments'], 'All experiments')),
    section(`Results of ${uid}`, async () => {
      const { variants, activePlayersByDay } = await get(`/v1/admin/experiments/${encodeURIComponent(uid)}/results`);
      const control = variants[0]?.uid;
      const days = activePlayersByDay.map((d) => d.day);
      const lines = variants.map((v) => ({
        label: v.uid,
        values: activePlayersByDay.map((d) => d.players[v.uid] ?? 0),
      }));
      return [
        table(
          'Players per variant',
          ['Variant', 'Players'],
          variants.map((v) => [v.uid === control && v.uid !== 'control' ? `${v.uid} (the control)` : v.uid, v.players]),
        ),
        METRICS.map(([name, label]) => {
          const bounds = variants.flatMap((v) => v.metrics[name].ci95 ?? []).concat(0);
          const low = Math.min(...bounds);
          const high = Math.max(...bounds);
          return table(
            label,
            ['Variant', 'Mean', 'Difference', '95% interval', 'Against the control', 'p-value'],
            variants.map((v) => {
              const m = v.metrics[name];
              return [
                v.uid,
                number(m.mean),
                signedNumber(m.difference),
                m.ci95 ? `${number(m.ci95[0])} to ${number(m.ci95[1])}` : '—',
                intervalBar(m, low, high),
                m.pValue === null ? '—' : m.pValue < 0.001 ? '< 0.001' : number(m.pValue),
              ];
            }),
          );
        }),
        days.length
          ? figure(
              'Daily active players per variant',
              lineChart(days, lines, { counts: true }),
              dayTable('Daily active players per variant', days, lines),
            )
          : h('p', { class: 'muted' }, 'No player has acted in the experiment yet.'),
      ];
    }),
  ];
}
