/**
 * The causal chain of an action (by referenceId), a provision, a chest opening or a support adjustment: each request that touched it,
 * in log order, with its events, the catalog rules behind each award, and every balance before
 * and after; later reversals, cancels and refunds follow as their own steps.
 */
import { get } from '../api.js';
import { facts, field, fill, h, link, signed, table, time, words, yesNo } from '../dom.js';

const SUBJECTS = {
  reference: 'Action (referenceId)',
  provision: 'Provision (provisionUid)',
  opening: 'Chest opening (openingUid)',
  adjustment: 'Support adjustment (adjustmentUid)',
};
/** Subjects found on their player's stream: the player is named with them. */
const ON_PLAYER = new Set(['opening', 'adjustment']);

/** `#/trace/<kind>/<id>`; a chest opening or an adjustment is found on its player's stream: `#/trace/opening/<openingUid>/<playerId>`. */
export function tracePage([kind = 'reference', subject, player]) {
  const select = h(
    'select',
    { id: 'trace-kind' },
    Object.entries(SUBJECTS).map(([value, label]) => h('option', { value, selected: value === kind }, label)),
  );
  const input = h('input', {
    id: 'trace-subject',
    value: subject ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 40,
    required: true,
  });
  const playerInput = h('input', {
    id: 'trace-player',
    value: player ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 40,
  });
  const playerField = field('Player id', playerInput, 'The player who opened the chest, or was adjusted');
  const showPlayer = () => {
    playerField.hidden = !ON_PLAYER.has(select.value);
    playerInput.required = !playerField.hidden;
  };
  select.addEventListener('change', showPlayer);
  showPlayer();
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit(event) {
        event.preventDefault();
        const ids = [input.value.trim(), ...(ON_PLAYER.has(select.value) ? [playerInput.value.trim()] : [])];
        location.hash = `#/trace/${select.value}/${ids.map(encodeURIComponent).join('/')}`;
      },
    },
    field('Trace of', select),
    field('Id', input),
    playerField,
    h('button', { type: 'submit' }, 'Show trace'),
  );
  if (!subject || !SUBJECTS[kind] || (ON_PLAYER.has(kind) && !player)) return form;
  const query =
    kind === 'reference'
      ? { referenceId: subject }
      : kind === 'provision'
        ? { provisionUid: subject }
        : kind === 'adjustment'
          ? { adjustmentUid: subject, playerId: player }
          : { openingUid: subject, playerId: player };
  const body = h('div', { 'aria-live': 'polite' });
  // Read again on demand: a reversal or refund made since shows as a new step.
  const load = () => fill(body, async () => chain(await get('/v1/audit/trace', query)));
  load();
  return [
    form,
    h(
      'section',
      { 'aria-labelledby': 'chain' },
      h('h2', { id: 'chain' }, 'Causal chain'),
      h('button', { type: 'button', class: 'secondary', onclick: load }, 'Refresh'),
      body,
    ),
  ];
}

function chain(trace) {
  const about =
    'adjustmentUid' in trace
      ? [
          ['Adjustment', trace.adjustmentUid],
          ['Reason', trace.reason],
          ['By key', trace.keyName],
        ]
      : 'openingUid' in trace
        ? [
            ['Chest opening', trace.openingUid],
            ['Chest', `${trace.chestLabel} (${trace.chestDeliverableUid})`],
          ]
        : 'actionName' in trace
          ? [
              ['Action', trace.actionName],
              ['Reference', trace.referenceId],
              ['Reversed', yesNo(trace.reversed)],
              [
                'Cost provision',
                trace.provisionUid ? link(['trace', 'provision', trace.provisionUid], trace.provisionUid) : 'none',
              ],
            ]
          : [
              ['Provision', trace.provisionUid],
              ['Kind', trace.referenceType],
              ['Status', trace.status],
              ['Bundle', trace.bundleUid ?? '—'],
              ['Action', trace.referenceId ? link(['trace', 'reference', trace.referenceId], trace.referenceId) : '—'],
            ];
  return [
    facts([['Player', link(['player', trace.playerId], trace.playerId)], ...about]),
    h(
      'ol',
      { class: 'timeline steps' },
      trace.chains.map((c, i) => step(c, i, `player-${trace.playerId}`)),
    ),
  ];
}

/** What a step did: its events on the player's stream (a registration made on the way left out), else its decisive event. */
function stepTitle(c, playerStream) {
  const own = c.events
    .filter((e) => e.stream === playerStream && e.type !== 'PlayerRegistered')
    .map((e) => words(e.type));
  return own.length ? own.join(', ') : words(c.cause);
}

/** One request (or job run) and what it appended. */
function step(c, index, playerStream) {
  const headingId = `step-${index + 1}`;
  return h(
    'li',
    { class: index > 0 ? 'later' : null, 'aria-labelledby': headingId },
    h('h3', { id: headingId }, `${index + 1}. ${stepTitle(c, playerStream)}`),
    h(
      'p',
      { class: 'muted' },
      `${time(c.time)} · key ${c.keyName} · request ${c.correlationId} · catalog version ${c.catalogVersion}`,
    ),
    table(
      'Balances',
      ['Balance', 'Before → after', 'Change', 'By'],
      c.balanceChanges.map((b) => [
        h('code', {}, b.balance),
        `${b.before} → ${b.after}`,
        signed(b.change),
        words(b.type),
      ]),
      'no balance changed.',
    ),
    c.rules ? rules(c.rules) : null,
    h(
      'details',
      {},
      h('summary', {}, `Events (${c.events.length})`),
      h(
        'ul',
        {},
        c.events.map((e) =>
          h(
            'li',
            {},
            h('strong', {}, words(e.type)),
            ` ${e.summary} `,
            h('span', { class: 'muted' }, `(${e.stream} #${e.revision}, position ${e.position})`),
          ),
        ),
      ),
    ),
  );
}

const grants = (list) => (list.length ? list.map((g) => `${g.label} ${signed(g.amount)}`).join(', ') : '—');

/** The catalog rules that decided the action, as recorded when it was processed. */
function rules(r) {
  const rows = [
    ['Action', r.action.name, `${r.action.points} × ${r.action.multiplier}`, grants(r.action.grants)],
    ...r.awards.map((a) => [
      a.kind === 'badge' ? 'Badge' : 'Trigger',
      `${a.label} (${a.ruleType}${a.rank ? `, rank ${a.rank.rank} ${a.rank.label}` : ''}${a.limited ? ', limited' : ''})`,
      a.points,
      grants(a.grants),
    ]),
    ...r.levels.map((l) => ['Level', `${l.level}: ${l.label} (at ${l.target} points)`, '—', grants(l.grants)]),
  ];
  return table(`Catalog rules applied (version ${r.catalogVersion})`, ['Rule', 'Which', 'Points', 'Grants'], rows);
}
