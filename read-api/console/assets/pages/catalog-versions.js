/**
 * The catalog's life cycle: the version in force as YAML in an editor, checked (validate), compared
 * (diff), tried on the recorded history (simulate) and published now or at a time, with an end; the
 * versions list, a diff between any two, and a revert. A Server key edits; an Auditor key reads.
 */
import { get, getText, post, session } from '../api.js';
import { errorNote, field, fill, h, table, time } from '../dom.js';
import { refusal, simulation, usernamesOnBoards } from './simulation.js';

/** The service's code for a publication made on a version that is no longer the newest. */
const CATALOG_CHANGED = 9040;

/** The view; `notice`, the outcome of the publication or revert that showed it again, on top. */
export function versionsView(notice) {
  const editable = session.tier() === 'Server';
  const view = h('div', { class: 'catalog-versions' }, h('p', { class: 'muted' }, 'Loading…'));
  fill(view, async () => {
    const [inForce, yaml, versions] = await Promise.all([
      get('/v1/admin/catalog'),
      getText('/v1/admin/catalog', { format: 'yaml' }),
      get('/v1/admin/catalog/versions'),
    ]);
    const reload = (outcome) => view.replaceWith(versionsView(outcome));
    return [
      notice,
      h(
        'p',
        { role: 'status' },
        `In force: version ${inForce.version}, published ${time(inForce.publishedAt)} by ${inForce.publishedBy}` +
          (inForce.comment ? ` (“${inForce.comment}”)` : '') +
          (inForce.until ? `, until ${time(inForce.until)}` : '') +
          '.',
      ),
      draftSection(yaml, newest(versions), editable, reload),
      versionsSection(versions, editable, reload),
    ];
  });
  return view;
}

/** The newest version number, which a publication names as the one it was made on. */
const newest = (versions) => Math.max(0, ...versions.map((v) => v.version));

/** A textarea with line numbers beside it, kept in step as the text grows and scrolls. */
function editor(text, editable) {
  const area = h('textarea', {
    id: 'catalog-draft',
    spellcheck: 'false',
    autocomplete: 'off',
    wrap: 'off',
    rows: 24,
    readonly: !editable,
    'aria-describedby': 'catalog-draft-hint',
  });
  area.value = text;
  const gutter = h('pre', { class: 'gutter', 'aria-hidden': 'true' });
  const number = () => {
    const lines = area.value.split('\n').length;
    gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join('\n');
    gutter.scrollTop = area.scrollTop;
  };
  area.addEventListener('input', number);
  area.addEventListener('scroll', () => (gutter.scrollTop = area.scrollTop));
  number();
  return { area, element: h('div', { class: 'editor' }, gutter, area) };
}

function draftSection(yaml, expectedVersion, editable, reload) {
  const { area, element } = editor(yaml, editable);
  const result = h('div', { 'aria-live': 'polite', id: 'draft-result' });
  const draft = () => ({ yaml: area.value });
  const act = (label, run, attributes = {}) =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        ...attributes,
        async onclick(event) {
          event.target.disabled = true;
          await fill(result, async () => {
            try {
              return await run();
            } catch (error) {
              if (error.code === 1001) return refusal(error);
              throw error;
            }
          });
          event.target.disabled = false;
        },
      },
      label,
    );
  const actions = h(
    'div',
    { class: 'actions' },
    act('Validate', async () => problems(await post('/v1/admin/catalog/validate', draft()))),
    act('Diff against the version in force', async () => changes(await post('/v1/admin/catalog/diff', draft()))),
    act('Try on history', async () => {
      const report = await post('/v1/audit/simulate', { ...draft(), top: 20 });
      return simulation(report, await usernamesOnBoards(report));
    }),
  );
  return h(
    'section',
    { 'aria-labelledby': 'draft' },
    h('h2', { id: 'draft' }, editable ? 'Edit the catalog' : 'The catalog in force'),
    h(
      'p',
      { class: 'muted', id: 'catalog-draft-hint' },
      editable
        ? 'The version in force, as its file. Change it, check it and try it on the recorded history, then publish it.'
        : 'The version in force, as its file (an Auditor key reads it; a Server key edits it).',
    ),
    element,
    actions,
    editable ? publishForm(draft, expectedVersion, reload) : null,
    result,
  );
}

/** The validation's answer: every problem at its path, or that there is none. */
const problems = ({ valid, problems: list }) =>
  valid
    ? h('p', { class: 'good', role: 'status' }, 'The draft is valid.')
    : h(
        'div',
        { role: 'alert' },
        h('p', { class: 'error' }, `The draft has ${list.length === 1 ? 'a problem' : `${list.length} problems`}.`),
        h(
          'ul',
          { class: 'problems' },
          list.map((p) => h('li', {}, h('code', {}, p.path || '(the catalog)'), `: ${p.message}`)),
        ),
      );

/** What a publication would change: one row per entry added, removed or changed. */
const changes = ({ changes: list }) =>
  table(
    'Changes',
    ['Section', 'Uid', 'Change', 'Fields'],
    list.map((c) => [c.section, h('code', {}, c.uid), c.change, c.fields.join(', ') || '—']),
    'none: the same catalog.',
  );

/** A moment the browser's `datetime-local` control holds (in the browser's time zone), as Unix ms; null when empty. */
const moment = (input) => (input.value ? new Date(input.value).getTime() : null);

function publishForm(draft, expectedVersion, reload) {
  const comment = h('input', { id: 'publish-comment', autocomplete: 'off', size: 40 });
  const at = h('input', { id: 'publish-at', type: 'datetime-local' });
  const until = h('input', { id: 'publish-until', type: 'datetime-local' });
  const button = h('button', { type: 'submit' }, 'Publish');
  const status = h('div', { 'aria-live': 'polite' });
  return h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Publish',
      async onsubmit(event) {
        event.preventDefault();
        button.disabled = true;
        const body = { ...draft(), expectedVersion };
        if (comment.value.trim()) body.comment = comment.value.trim();
        if (moment(at) !== null) body.effectiveAt = moment(at);
        if (moment(until) !== null) body.until = moment(until);
        await fill(status, async () => {
          try {
            const published = await post('/v1/admin/catalog/publish', body, { idempotencyKey: crypto.randomUUID() });
            reload(h('p', { class: 'good', role: 'status' }, publishedSentence(published, expectedVersion)));
            return null;
          } catch (error) {
            return publicationRefused(error);
          }
        });
        button.disabled = false;
      },
    },
    field('Comment', comment, 'Why: shown in the versions list'),
    field('In force from', at, 'Empty: at once. In your browser’s time zone'),
    field('Until', until, 'Empty: no end (a live event ends)'),
    button,
    status,
  );
}

const publishedSentence = (p, expectedVersion) =>
  p.version === expectedVersion
    ? `Nothing to publish: the draft is version ${p.version}, in force.`
    : p.status === 'Scheduled'
      ? `Published version ${p.version}, in force from ${time(p.effectiveAt)}${p.until ? ` until ${time(p.until)}` : ''}.`
      : `Published version ${p.version}, in force now${p.until ? ` until ${time(p.until)}` : ''}.`;

function publicationRefused(error) {
  if (error.code === 1001) return refusal(error);
  if (error.code === CATALOG_CHANGED)
    return h(
      'p',
      { class: 'error', role: 'alert' },
      `${error.message}: reload the page and compare before publishing.`,
    );
  return errorNote(error);
}

function versionsSection(versions, editable, reload) {
  const compared = h('div', { 'aria-live': 'polite' });
  const choose = (id, selected) =>
    h(
      'select',
      { id },
      versions.map((v) => h('option', { value: v.version, selected: v.version === selected }, `Version ${v.version}`)),
    );
  const latest = newest(versions);
  const from = choose('diff-from', latest);
  const against = choose('diff-against', versions.find((v) => v.status === 'Active')?.version ?? latest);
  const compare = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Compare two versions',
      async onsubmit(event) {
        event.preventDefault();
        await fill(compared, async () => {
          const { catalog } = await get(`/v1/admin/catalog/versions/${from.value}`);
          return changes(await post('/v1/admin/catalog/diff', { catalog, against: Number(against.value) }));
        });
      },
    },
    field('Version', from),
    field('Compared with', against),
    h('button', { type: 'submit', class: 'secondary' }, 'Compare'),
  );
  const revertStatus = h('div', { 'aria-live': 'polite' });
  const revert = (version) =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        async onclick() {
          await fill(revertStatus, async () => {
            try {
              const published = await post(
                '/v1/admin/catalog/revert',
                { version, expectedVersion: latest, comment: `Revert to version ${version}` },
                { idempotencyKey: crypto.randomUUID() },
              );
              reload(
                h(
                  'p',
                  { class: 'good', role: 'status' },
                  `Reverted: version ${published.version} has version ${version}'s rules.`,
                ),
              );
              return null;
            } catch (error) {
              return publicationRefused(error);
            }
          });
        },
      },
      `Revert to version ${version}`,
    );
  return h(
    'section',
    { 'aria-labelledby': 'versions' },
    h('h2', { id: 'versions' }, 'Versions'),
    table(
      'Every version, newest first',
      [
        'Version',
        'Status',
        'Source',
        'By',
        'Comment',
        'Published',
        'In force from',
        'Until',
        ...(editable ? [''] : []),
      ],
      versions.map((v) => [
        v.version,
        v.status,
        v.source,
        v.publishedBy,
        v.comment ?? '—',
        time(v.publishedAt),
        time(v.effectiveAt),
        v.until ? time(v.until) : '—',
        ...(editable ? [v.status === 'Active' ? '' : revert(v.version)] : []),
      ]),
    ),
    revertStatus,
    h('h3', {}, 'Compare two versions'),
    compare,
    compared,
  );
}
