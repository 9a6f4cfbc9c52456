/**
 * A player's support actions, for Server keys: adjust points and deliverables, reverse an action,
 * erase the player. Each asks first, naming what will change, and is sent only once confirmed.
 */
import { get, post } from '../api.js';
import { field, h, link, signed } from '../dom.js';

/** The Support section's content: the three forms for a Server key, a note for any other; `reload(notice)` shows the page again under a notice. */
export async function supportActions(playerId, profile, reload) {
  const { tier } = await get('/v1/auth/key');
  if (tier !== 'Server') return h('p', { class: 'muted' }, 'Adjusting, reversing and erasing need a Server key.');
  return [adjustForm(playerId, profile, reload), reverseForm(playerId, profile, reload), eraseForm(playerId, profile)];
}

/**
 * A form whose submit first shows `describe()` with Confirm and Cancel; Confirm sends `send()` and
 * shows its outcome (`shown`: with the player's page shown again). The description and the outcome
 * are announced to screen readers.
 */
function confirmedForm(id, title, fields, submitLabel, { describe, send, done, shown }) {
  const status = h('div', { role: 'status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, submitLabel);
  const form = h('form', { class: 'inline', id }, fields, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let what;
    try {
      what = describe();
    } catch (error) {
      status.replaceChildren(h('p', { class: 'error', role: 'alert' }, error.message));
      return;
    }
    const confirm = h('button', { type: 'button' }, 'Confirm');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => status.replaceChildren());
    confirm.addEventListener('click', async () => {
      confirm.disabled = cancel.disabled = true;
      try {
        const outcome = h('p', { role: 'status' }, done(await send()));
        // The player's page shown again, with the outcome on top; else the outcome here.
        if (shown) shown(outcome);
        else status.replaceChildren(outcome);
      } catch (error) {
        status.replaceChildren(h('p', { class: 'error', role: 'alert' }, error.message));
      }
    });
    status.replaceChildren(h('p', { class: 'confirm' }, what), h('p', { class: 'links' }, confirm, ' ', cancel));
    confirm.focus();
  });
  return h('div', { class: 'support' }, h('h3', {}, title), form, status);
}

const input = (id, attributes = {}) => h('input', { id, autocomplete: 'off', spellcheck: 'false', ...attributes });

/** `gold=25, sword=-1` as the route's deliverables; throws naming what it cannot read. */
function deliverablesOf(text) {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([^=\s]+)\s*=\s*(-?\d+(?:\.\d+)?)$/.exec(part);
      if (!match) throw new Error(`Deliverables: write uid=amount, got "${part}".`);
      return { deliverable: match[1], amount: Number(match[2]) };
    });
}

function adjustForm(playerId, profile, reload) {
  const reason = input('adjust-reason', { size: 40, maxlength: 500, required: true });
  const points = input('adjust-points', { type: 'number', step: 'any', size: 8 });
  const deliverables = input('adjust-deliverables', { size: 30 });
  let body;
  return confirmedForm(
    'adjust-form',
    'Adjust points and deliverables',
    [
      field('Reason', reason, 'Kept with the adjustment, with your key’s name'),
      field('Points', points, 'Negative to take back'),
      field('Deliverables', deliverables, 'uid=amount, comma separated; negative to take back'),
    ],
    'Adjust…',
    {
      describe() {
        body = {
          playerId,
          reason: reason.value.trim(),
          points: points.value === '' ? 0 : Number(points.value),
          deliverables: deliverablesOf(deliverables.value),
        };
        if (!body.reason) throw new Error('Give a reason.');
        const changes = [
          ...(body.points ? [`points ${signed(body.points)}`] : []),
          ...body.deliverables.map((d) => `${d.deliverable} ${signed(d.amount)}`),
        ];
        if (!changes.length) throw new Error('Nothing to adjust: give points or deliverables.');
        return `This will change ${profile.username}’s holdings: ${changes.join(', ')}, for “${body.reason}”.`;
      },
      send: () => post('/v1/admin/players/adjust', body),
      shown: reload,
      done(a) {
        return [
          `Adjusted (${a.adjustmentUid}). `,
          link(['trace', 'adjustment', a.adjustmentUid, playerId], 'Trace of the adjustment'),
        ];
      },
    },
  );
}

function reverseForm(playerId, profile, reload) {
  const referenceId = input('reverse-reference', { size: 30, required: true });
  const name = input('reverse-name', { size: 20, required: true });
  let body;
  return confirmedForm(
    'reverse-form',
    'Reverse an action',
    [field('ReferenceId', referenceId), field('Action name', name)],
    'Reverse…',
    {
      describe() {
        body = { playerId, referenceId: referenceId.value.trim(), name: name.value.trim() };
        return `This will reverse ${body.name} ${body.referenceId} of ${profile.username}: its points, deliverables and the awards it brought are taken back, its cost refunded.`;
      },
      send: () => post('/v1/action/delete', body),
      shown: reload,
      done() {
        return [`Reversed ${body.referenceId}. `, link(['trace', 'reference', body.referenceId], 'Its trace')];
      },
    },
  );
}

function eraseForm(playerId, profile) {
  return confirmedForm('erase-form', 'Erase the player', [], 'Erase…', {
    describe: () =>
      `This will erase ${profile.username} (${playerId}) for good: their username, picture and actions’ details read [erased] everywhere, and every request naming them is refused. Their amounts stay in the history.`,
    send: () => post('/v1/admin/players/erase', { playerId }),
    done: () => `Erased ${playerId}.`,
  });
}
