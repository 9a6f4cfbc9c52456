/**
 * Operations: the read models checked against the log, a draft catalog simulated over the log, the
 * jobs queue, and webhook deliveries.
 */
import { get, post } from '../api.js';
import { facts, field, fill, h, section, table, time } from '../dom.js';
import { refusal, simulation, usernamesOnBoards } from './simulation.js';

export function operationsPage() {
  return [verifySection(), simulateSection(), section('Jobs queue', jobs), section('Webhooks', webhooks)];
}

function verifySection() {
  const result = h(
    'div',
    { 'aria-live': 'polite' },
    h(
      'p',
      { class: 'muted' },
      'Replays every event into fresh read models and compares them with the live ones. It reads the whole log: on a large one it takes a while.',
    ),
  );
  const run = h('button', { type: 'button' }, 'Run verify');
  run.addEventListener('click', async () => {
    run.disabled = true;
    result.replaceChildren(h('p', { class: 'muted' }, 'Verifying…'));
    await fill(result, async () => verification(await post('/v1/audit/verify')));
    run.disabled = false;
  });
  return h(
    'section',
    { 'aria-labelledby': 'verify' },
    h('h2', { id: 'verify' }, 'Verify the read models'),
    run,
    result,
  );
}

function verification(v) {
  // Documents the writes kept changing during the check were not compared at one position.
  const unsettled = v.unsettled ? ` ${v.unsettled} documents kept changing under writes: run it again.` : '';
  const summary = `${v.eventsReplayed} events replayed into ${v.collections.length} collections in ${v.ms} ms`;
  if (v.differences.length === 0)
    return h(
      'p',
      v.unsettled ? { role: 'status' } : { class: 'good', role: 'status' },
      `No differences: ${summary}.${unsettled}`,
    );
  return [
    h(
      'p',
      { class: 'error', role: 'alert' },
      `${v.differences.length}${v.truncated ? '+' : ''} differences: ${summary}.${unsettled}`,
    ),
    table(
      'Differences',
      ['Collection', 'Document', 'Path', 'Live', 'Rebuilt'],
      v.differences.map((d) => [d.collection, d._id, d.path, JSON.stringify(d.live), JSON.stringify(d.rebuilt)]),
    ),
  ];
}

const DEFAULT_TOP = 100;
/** The service's code for an invalid body or catalog: its message has one line per problem. */
const INVALID = 1001;

/** A draft catalog file (YAML or JSON) replayed over the whole log (POST /v1/audit/simulate): nothing is written. */
function simulateSection() {
  const file = h('input', {
    id: 'draft-catalog',
    type: 'file',
    accept: '.yaml,.yml,.json,application/yaml,application/json',
    required: true,
  });
  const players = h('input', { id: 'simulated-players', autocomplete: 'off', spellcheck: 'false', size: 36 });
  const top = h('input', { id: 'simulated-top', type: 'number', min: 1, max: 1000, value: DEFAULT_TOP });
  const run = h('button', { type: 'submit' }, 'Run simulation');
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'inline',
      async onsubmit(event) {
        event.preventDefault();
        run.disabled = true;
        result.replaceChildren(h('p', { class: 'muted' }, 'Simulating…'));
        await fill(result, async () => {
          const upload = file.files[0];
          if (!upload) return h('p', { class: 'error', role: 'alert' }, 'Choose a catalog file.');
          const ids = players.value.split(/[\s,]+/).filter(Boolean);
          // The file's text as the service reads a catalog file (JSON is YAML too).
          const body = { yaml: await upload.text(), top: Number(top.value) || DEFAULT_TOP };
          if (ids.length > 0) body.players = ids;
          try {
            const report = await post('/v1/audit/simulate', body);
            return simulation(report, await usernamesOnBoards(report));
          } catch (error) {
            if (error.code !== INVALID) throw error;
            return refusal(error);
          }
        });
        run.disabled = false;
      },
    },
    field('Draft catalog', file, 'A catalog file, YAML or JSON'),
    field('Player ids', players, 'Only these players, separated by spaces or commas; empty for all'),
    field('Top', top, 'At most this many affected players listed'),
    run,
  );
  return h(
    'section',
    { 'aria-labelledby': 'simulate' },
    h('h2', { id: 'simulate' }, 'Simulate a draft catalog'),
    h(
      'p',
      { class: 'muted' },
      'Replays the whole log as if the draft had always been in force, every action decided again; nothing is written.',
    ),
    form,
    result,
  );
}

async function jobs() {
  const o = await get('/v1/admin/jobs');
  return [
    facts([
      ['Waiting', String(o.waiting)],
      ['Delayed', String(o.delayed)],
      ['Running', String(o.running)],
      ['Failed', String(o.failed)],
    ]),
    table(
      'Latest failures, newest first',
      ['Job', 'Id', 'Attempts', 'Failed at', 'Reason'],
      o.recentFailures.map((f) => [f.type, f.jobId, f.attempts, time(f.failedAt), f.reason]),
      'none.',
    ),
  ];
}

async function webhooks() {
  const hooks = await get('/v1/admin/webhooks');
  if (hooks.length === 0) return h('p', { class: 'muted' }, 'No webhooks are configured.');
  return hooks.map((w) =>
    h(
      'article',
      { class: 'webhook' },
      h('h3', {}, w.name),
      facts([
        ['Receiver', w.url],
        ['Events', w.events.join(', ')],
        ['Delivered up to', `position ${w.cursor} of ${w.head} (${w.head - w.cursor} behind)`],
        ['Waiting', String(w.waiting)],
        ['Failed', String(w.failed)],
        ['Delivered', String(w.delivered)],
      ]),
      table(
        'Latest attempts, newest first',
        ['Event', 'Position', 'Outcome', 'Attempts', 'At', 'Answer'],
        w.recent.map((r) => [r.type, r.position, r.outcome, r.attempts, time(r.at), r.result]),
        'none yet.',
      ),
      table(
        'Given up, until redelivered',
        ['Event', 'Position', 'Attempts', 'Last answer'],
        w.failures.map((f) => [f.type, f.position, f.attempts, f.lastResult ?? '—']),
        'none.',
      ),
    ),
  );
}
