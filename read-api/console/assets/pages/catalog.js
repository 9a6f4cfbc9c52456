/** The published catalog as the admin routes show it: one view at a time, details on demand. */
import { get, post } from '../api.js';
import { fill, h, link, section, table, yesNo } from '../dom.js';
import { versionsView } from './catalog-versions.js';

const VIEWS = [
  { path: 'actions', label: 'Actions', render: actions },
  { path: 'badges', label: 'Badges', render: () => awards('/v1/admin/badges', 'Badges') },
  { path: 'triggers', label: 'Triggers', render: () => awards('/v1/admin/triggers', 'Triggers') },
  { path: 'levels', label: 'Levels', render: levels },
  { path: 'ranks', label: 'Rank sets', render: ranks },
  { path: 'stores', label: 'Stores', render: stores },
  { path: 'chest', label: 'Chests', render: chests },
  { path: 'streaks', label: 'Streaks', render: streaks },
  { path: 'missions', label: 'Missions', render: missions },
  { path: 'currencies', label: 'Currencies', render: currencies },
  { path: 'segments', label: 'Segments', render: segments },
  { path: 'boards', label: 'Board definitions', render: boards },
  { path: 'versions', label: 'Versions', render: versionsView },
];

export function catalogPage([view, uid]) {
  const current = VIEWS.find((v) => v.path === view) ?? VIEWS[0];
  return [
    h(
      'nav',
      { class: 'tabs', 'aria-label': 'Catalog views' },
      h(
        'ul',
        {},
        VIEWS.map((v) =>
          h('li', {}, h('a', { href: `#/catalog/${v.path}`, 'aria-current': v === current ? 'page' : false }, v.label)),
        ),
      ),
    ),
    current.render(uid),
  ];
}

/** When an entry is active: from its start to its end, either open. */
const activeWindow = (e) => (e.startDate || e.endDate ? `${e.startDate ?? '…'} to ${e.endDate ?? '…'}` : 'always');

const deliverables = (list) => (list?.length ? list.map((d) => `${d.label} × ${d.amount}`).join(', ') : 'nothing');

/** An entry's detail, read from its detail route when the reader opens it. */
function detail(path, summary, render) {
  const body = h('div');
  const details = h('details', {}, h('summary', {}, summary), body);
  details.addEventListener(
    'toggle',
    () => details.open && !body.hasChildNodes() && fill(body, async () => render((await get(path))[0])),
  );
  return details;
}

const granted = (path) => detail(path, 'What it grants', (entry) => h('p', {}, deliverables(entry.deliverables)));

/** ` where category eq electronics and amount gte 10`, or nothing without filters. */
function where(filters) {
  const tests = filters.map((f) => `${f.name} ${f.op} ${[f.value].flat().join(' or ')}`).join(' and ');
  return tests ? ` where ${tests}` : '';
}

/** `3 × purchase where category eq electronics, within 30 days`. */
function condition({ action, filters, challenge: c }) {
  return [
    `${c.times ? `${c.times} × ` : ''}${action}`,
    where(filters),
    c.sum ? `, ${c.sum.field} adding up to ${c.sum.atLeast} or more` : '',
    c.withinDays ? `, within ${c.withinDays} days` : '',
    c.between ? `, from ${c.between.start} to ${c.between.end}` : '',
  ].join('');
}

/** What earns a badge or trigger (every condition must hold), and what it grants. */
const earnedBy = (path) =>
  detail(path, 'Conditions and grants', (entry) => [
    h(
      'ul',
      { class: 'conditions' },
      entry.conditions.map((c) => h('li', {}, condition(c))),
    ),
    h('p', {}, `Grants: ${deliverables(entry.deliverables)}`),
  ]);

function actions() {
  return section('Actions', async () => {
    const list = await get('/v1/admin/actions');
    return table(
      'The active actions',
      ['Action', 'Uid', 'Points', 'Point gap (s)', 'Cost', 'Caps', 'Action objects', 'Grants'],
      list.map((a) => [
        h('code', {}, a.identifier),
        a.uid,
        a.points,
        a.pointGap,
        a.cost ? `${a.cost} ${a.costLabel ?? ''}`.trim() : '—',
        a.caps.length ? a.caps.map(cap).join(', ') : '—',
        a.actionObjects?.map((o) => `${o.label} (${o.typeLabel})`).join(', ') ?? '—',
        granted(`/v1/admin/actions/${encodeURIComponent(a.uid)}`),
      ]),
    );
  });
}

/** `5 times a Day`, `50 points a Week`: what a player may do of an action per period. */
const cap = (c) => `${c.times !== null ? `${c.times} times` : `${c.points} points`} a ${c.period}`;

function awards(path, label) {
  return section(label, async () => {
    const list = await get(path);
    // The ranks of the Ranked ones (a tier that may read the badges may read the rank sets).
    const sets = list.some((b) => b.rankSetUId)
      ? new Map((await get('/v1/admin/ranks')).map((r) => [r.uid, r]))
      : new Map();
    const only = await onlyFor(list);
    return table(
      `The active ${label.toLowerCase()}`,
      ['Label', 'Uid', 'Type', 'Points', 'Requires badge', 'When', 'Earned by'],
      list.map((b) => [
        labelled(b, only),
        b.uid,
        [b.type, b.randomizedPrize ? ', one prize drawn' : '', b.limited ? ', limited' : ''].join('') +
          (sets.has(b.rankSetUId) ? `: ${rankSteps(sets.get(b.rankSetUId))}` : ''),
        b.points,
        b.requiredBadgeUId ?? '—',
        activeWindow(b),
        earnedBy(`${path}/${encodeURIComponent(b.uid)}`),
      ]),
    );
  });
}

function levels() {
  return section('Levels', async () =>
    table(
      'Levels, by number',
      ['Level', 'Label', 'Points to reach it', 'Active'],
      (await get('/v1/admin/levels')).map((l) => [l.level, l.label, l.target, yesNo(l.isActive)]),
    ),
  );
}

/** `Bronze at 2 times, +10 points; Silver at 5 times, ...`: what reaches each rank. */
const rankSteps = (set) =>
  set.ranks
    .map(
      (k) =>
        `${k.rank}. ${k.label} at ${k.times !== null ? `${k.times} times` : `a sum of ${k.sum}`}, +${k.points} points`,
    )
    .join('; ');

function ranks() {
  return section('Rank sets', async () =>
    (await get('/v1/admin/ranks')).map((r) =>
      table(
        `${r.label} (${r.uid}${r.isActive ? '' : ', inactive'})`,
        ['Rank', 'Label', 'Reached at', 'Points'],
        r.ranks.map((k) => [k.rank, k.label, k.times !== null ? `${k.times} times` : `a sum of ${k.sum}`, k.points]),
      ),
    ),
  );
}

function stores() {
  return section('Stores', async () =>
    (await get('/v1/admin/stores')).map((s) =>
      table(
        `${s.label} (${s.uid}${s.isActive ? '' : ', inactive'}; ${activeWindow(s)})`,
        ['Bundle', 'Uid', 'Cost', 'Stock left', 'Contents'],
        s.storeBundles.map((b) => [
          b.label,
          b.uid,
          `${b.cost} ${b.costLabel ?? ''}`.trim(),
          b.initialStock === 0 ? 'unlimited' : `${b.remainingStock} of ${b.initialStock}`,
          b.storeBundleContents.map((c) => `${c.label} × ${c.amount}`).join(', '),
        ]),
      ),
    ),
  );
}

/** The catalog's chests, each linked to its prize pool and odds (a player's chests link there too). */
function chests(uid) {
  const list = section('Chests', async () => {
    const all = await get('/v1/admin/chests');
    return table(
      'Chests of the catalog',
      ['Chest', 'Uid', 'Scaling', 'Active', 'Odds'],
      all.map((c) => [
        c.label,
        h('code', {}, c.chestDeliverableUid),
        c.scalingMode,
        yesNo(c.isActive),
        link(['catalog', 'chest', c.chestDeliverableUid], `Odds of ${c.label}`),
      ]),
    );
  });
  return [
    list,
    uid ? section('Odds', async () => odds(await post('/v1/chest/preview', { chestDeliverableUId: uid }))) : null,
  ];
}

function odds(preview) {
  const draws =
    preview.drawCountMin === preview.drawCountMax
      ? `${preview.drawCountMin}`
      : `${preview.drawCountMin} to ${preview.drawCountMax}`;
  const amount = (c) => (c.amountMin === c.amountMax ? `${c.amountMin}` : `${c.amountMin} to ${c.amountMax}`);
  return [
    h('p', {}, `${preview.chestLabel}: ${draws} draw(s) per opening; amounts scaled by: ${preview.scalingMode}.`),
    h(
      'p',
      {},
      'Chance per draw: the chance that one draw picks the prize, out of the whole pool. Points and powerups are drawn too but not listed, so the chances listed can add up to less than 100 %.',
    ),
    table(
      'Prize pool',
      ['Reward', 'Amount', 'Chance per draw', 'Stock left'],
      preview.contents.map((c) => [
        c.rewardLabel,
        amount(c),
        `${c.weightPct}%`,
        c.limited ? String(c.remainingStock) : 'unlimited',
      ]),
    ),
  ];
}

function streaks() {
  return section('Streaks', async () => {
    const list = await get('/v1/admin/streaks');
    const only = await onlyFor(list);
    return table(
      'The streaks',
      ['Label', 'Uid', 'Period', 'Freezes', 'Active', 'Counted and rewarded'],
      list.map((s) => [
        labelled(s, only),
        s.uid,
        s.period,
        s.freezes ? `up to ${s.freezes.max}, one every ${s.freezes.earnEvery} periods in a row` : 'none',
        yesNo(s.isActive),
        detail(`/v1/admin/streaks/${encodeURIComponent(s.uid)}`, 'Conditions and milestones', (streak) => [
          h('p', {}, `Counts: ${streak.conditions.map((c) => `${c.action}${where(c.filters)}`).join(', or ')}`),
          h(
            'ul',
            { class: 'conditions' },
            streak.milestones.map((m) =>
              h('li', {}, `${m.length} in a row: +${m.points} points, ${deliverables(m.deliverables)}`),
            ),
          ),
        ]),
      ]),
    );
  });
}

function missions() {
  return section('Missions', async () => {
    const list = await get('/v1/admin/missions');
    const only = await onlyFor(list);
    return table(
      'The missions',
      ['Label', 'Uid', 'Repeat', 'Steps', 'Requires', 'When', 'Points', 'Active', 'Steps and grants'],
      list.map((m) => [
        labelled(m, only),
        m.uid,
        m.repeat === 'None' ? 'once' : `each ${m.repeat}`,
        m.ordered ? 'in order' : 'any order',
        [m.requires.badge && `badge ${m.requires.badge}`, m.requires.level !== null && `level ${m.requires.level}`]
          .filter(Boolean)
          .join(', ') || '—',
        activeWindow(m),
        m.points,
        yesNo(m.isActive),
        detail(`/v1/admin/missions/${encodeURIComponent(m.uid)}`, 'Steps and grants', (mission) => [
          h(
            'ol',
            { class: 'conditions' },
            mission.steps.map((s) => h('li', {}, `${s.label}: ${condition(s.condition)}`)),
          ),
          h('p', {}, `Grants: ${deliverables(mission.deliverables)}`),
        ]),
      ]),
    );
  });
}

/** The labels of the segments the entries name, by uid (read only when one names a segment). */
const onlyFor = async (list) =>
  list.some((e) => e.segment) ? new Map((await get('/v1/admin/segments')).map((s) => [s.uid, s.label])) : new Map();

/** An entry's label, its description and, when it applies to a segment only, which. */
const labelled = (e, segmentLabels) =>
  h(
    'span',
    {},
    e.label,
    e.description ? h('span', { class: 'hint' }, e.description) : null,
    e.segment ? h('span', { class: 'hint' }, `Only for: ${segmentLabels.get(e.segment) ?? e.segment}`) : null,
  );

/** `2 or more`, `at most 59`, `2 to 5`: an inclusive range, either end open. */
const range = ({ min, max }) =>
  max === null ? `${min} or more` : min === null ? `at most ${max}` : `${min} to ${max}`;

/** A segment's condition in words: `country is DE or AT`, `level 2 or more`, `holds badge b-vip`. */
function segmentCondition(c) {
  if ('attribute' in c) return `${c.attribute} is ${c.in.join(' or ')}`;
  if ('level' in c) return `level ${range(c.level)}`;
  if ('badge' in c) return `holds badge ${c.badge}`;
  return `points ${range(c.points)}`;
}

function segments() {
  return section('Segments', async () =>
    table(
      'The segments',
      ['Label', 'Uid', 'Players in it now', 'Conditions (all must hold)'],
      (await get('/v1/admin/segments')).map((s) => [
        s.label,
        s.uid,
        s.players,
        s.conditions.map(segmentCondition).join(', and '),
      ]),
    ),
  );
}

/** `30 days after the grant`, `end of the Week`, `never`. */
const expiry = (e) =>
  !e ? 'never' : e.afterDays !== null ? `${e.afterDays} days after the grant` : `end of the ${e.endOf}`;

function currencies() {
  return section('Currencies', async () =>
    table(
      'The currencies',
      ['Currency', 'Uid', 'Expires', 'Earn caps', 'Active'],
      (await get('/v1/admin/currencies')).map((c) => [
        c.label,
        c.uid,
        expiry(c.expiry),
        c.earnCaps.length ? c.earnCaps.map((e) => `${e.amount} a ${e.period}`).join(', ') : '—',
        yesNo(c.isActive),
      ]),
    ),
  );
}

/** The leaderboards as the catalog defines them (their standings are on the Leaderboards page). */
function boards() {
  return section('Board definitions', async () =>
    table(
      'The leaderboards',
      ['Board', 'Uid', 'Period', 'Counts', 'Scope', 'When', 'Active'],
      (await get('/v1/admin/leaderboards')).map((b) => [
        b.label,
        b.uid,
        b.period ? `each ${b.period}` : 'all time',
        b.metric === 'points' ? 'points' : `times ${b.metric.action} was processed`,
        b.scope ? `${b.aggregate === 'sum' ? 'sum per value of' : 'standings per value of'} ${b.scope}` : '—',
        activeWindow(b),
        yesNo(b.isActive),
      ]),
    ),
  );
}
