/** Operations: the read models checked against the log, the jobs queue, and webhook deliveries. */
import { get, post } from '../api.js';
import { facts, fill, h, section, table, time } from '../dom.js';

export function operationsPage() {
  return [verifySection(), section('Jobs queue', jobs), section('Webhooks', webhooks)];
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
  const summary = `${v.eventsReplayed} events replayed into ${v.collections.length} collections in ${v.ms} ms`;
  if (v.differences.length === 0) return h('p', { class: 'good', role: 'status' }, `No differences: ${summary}.`);
  return [
    h(
      'p',
      { class: 'error', role: 'alert' },
      `${v.differences.length}${v.truncated ? '+' : ''} differences: ${summary}.`,
    ),
    table(
      'Differences',
      ['Collection', 'Document', 'Path', 'Live', 'Rebuilt'],
      v.differences.map((d) => [d.collection, d._id, d.path, JSON.stringify(d.live), JSON.stringify(d.rebuilt)]),
    ),
  ];
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
