/** Building the page: elements from data, never from HTML strings (nothing the API sends is parsed as markup). */

/** An element with attributes (`on…` ones are listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...nodes(children));
  return element;
}

function nodes(children) {
  return children
    .flat(Infinity)
    .filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : String(c)));
}

/** A link to a page of the console. */
export const link = (parts, text) => h('a', { href: `#/${parts.map(encodeURIComponent).join('/')}` }, text);

/** A table with a caption and column headers; a sentence instead when there are no rows. */
export function table(caption, headers, rows, empty = 'None.') {
  if (rows.length === 0) return h('p', { class: 'muted' }, `${caption}: ${empty}`);
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((header) => h('th', { scope: 'col' }, header)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          row.map((cell) => h('td', {}, cell)),
        ),
      ),
    ),
  );
}

/** Terms and their descriptions. */
export const facts = (pairs) =>
  h(
    'dl',
    { class: 'facts' },
    pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '—')]),
  );

export const errorNote = (error) => h('p', { class: 'error', role: 'alert' }, error.message);

/**
 * A titled section whose content is loaded; a failure (e.g. a read the key's tier may not make)
 * is said in its place, and the rest of the page still shows.
 */
export function section(title, load) {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  fill(body, load);
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), body);
}

/** Replaces what `target` shows with what `load` makes, or its error. */
export async function fill(target, load) {
  target.setAttribute('aria-busy', 'true');
  try {
    target.replaceChildren(...nodes([await load()]));
  } catch (error) {
    target.replaceChildren(errorNote(error));
  } finally {
    target.removeAttribute('aria-busy');
  }
}

/** A labelled field: the label names the control for screen readers and clicks. */
export function field(label, control, hint) {
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: control.id }, label),
    control,
    hint ? h('span', { class: 'hint', id: hintId }, hint) : null,
  );
}

/** A moment (Unix ms) in UTC, to the second. */
export const time = (ms) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** `ActionProcessed` → `Action processed`. */
export const words = (type) => type.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/ [A-Z]/g, (s) => s.toLowerCase());

export const signed = (n) => (n > 0 ? `+${n}` : String(n));

export const yesNo = (b) => (b ? 'yes' : 'no');
