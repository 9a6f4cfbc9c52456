/**
 * A player: level and progress to the next, points, badges and ranks, balances, attributes, streaks, caps used
 * this period, chests, powerups, transactions, and the events of their stream, each linked to its trace.
 */
import { get, post } from '../api.js';
import { facts, field, h, link, section, signed, table, time, words, yesNo } from '../dom.js';
import { activityChart } from './player-activity.js';

/** Events of the timeline asked for at a time. */
const TIMELINE_PAGE = 100;

export function playerPage([playerId]) {
  const input = h('input', { id: 'player-id', value: playerId ?? '', autocomplete: 'off', spellcheck: 'false', size: 40, required: true });
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit(event) {
        event.preventDefault();
        location.hash = `#/player/${encodeURIComponent(input.value.trim())}`;
      },
    },
    field('Player id', input),
    h('button', { type: 'submit' }, 'Look up'),
  );
  if (!playerId) return form;
  const profile = post('/v1/player/profile', { playerId });
  return [
    form,
    h(
      'div',
      { class: 'columns' },
      section('Level and points', async () => level(await profile)),
      section('Balances', async () => {
        const { balances } = await profile;
        return table('What the player holds', ['Deliverable', 'Uid', 'Amount'], balances.map((b) => [b.label, h('code', {}, b.deliverableUid), b.amount]));
      }),
      section('Attributes', async () => {
        const { attributes } = await profile;
        return table("The player's attributes (leaderboard scopes)", ['Name', 'Value'], Object.entries(attributes).map(([name, value]) => [h('code', {}, name), value]), 'none.');
      }),
    ),
    section('Activity', () => activityChart(playerId)),
    h(
      'div',
      { class: 'columns' },
      section('Streaks', async () => {
        const streaks = await post('/v1/streaks/list', { playerId });
        return table(
          "The player's runs",
          ['Streak', 'Length', 'Longest', 'Freezes', 'Last period', 'Breaks at'],
          streaks.map((s) => [s.label, s.length, s.longest, s.freezes, s.lastPeriod ?? '—', s.breaksAt === null ? '—' : time(s.breaksAt)]),
        );
      }),
      section('Caps used this period', async () => {
        const { caps, timeZone } = await profile;
        return [
          table('Caps with a use this period', ['Cap', 'Of', 'Period', 'Used', 'Limit'], caps.map((c) => [c.kind, h('code', {}, c.of), `${c.period} ${c.periodName}`, c.used, c.limit])),
          h('p', { class: 'muted' }, `Periods of the player's calendar, in ${timeZone}.`),
        ];
      }),
    ),
    section('Badges and ranks', async () => {
      const { badges } = await profile;
      return table('Badges earned', ['Badge', 'Type', 'Times', 'Rank'], badges.map((b) => [b.label, b.type, b.count, b.rank ? `${b.rank.rank}: ${b.rank.label}` : '—']));
    }),
    h(
      'div',
      { class: 'columns' },
      section('Chests', async () => {
        const chests = await post('/v1/chest/list', { playerId });
        return table('Chests owned', ['Chest', 'Balance', 'Scaling', 'Odds'], chests.map((c) => [c.label, c.balance, c.scalingMode, link(['catalog', 'chest', c.chestDeliverableUid], `Odds of ${c.label}`)]));
      }),
      section('Powerups', async () => {
        const powerups = await post('/v1/powerup/list', { playerId });
        return table('Powerups owned', ['Powerup', 'Multiplier', 'Activated', 'Uses left', 'Expires'], powerups.map((p) => [p.prizeLabel, `×${p.multiplier}`, yesNo(p.isActivated), p.powerupMaxUseCount === 0 ? 'unlimited' : p.remainingUseCount, p.neverExpires ? 'never' : p.expiresAt ? time(p.expiresAt * 1000) : 'when activated']));
      }),
    ),
    section('Transactions', async () => {
      const transactions = await post('/v1/store/transactions', { playerId });
      return table(
        'The latest purchases and action costs, newest first',
        ['Provision', 'Kind', 'What', 'Cost', 'Status', 'Updated'],
        transactions.map((t) => [
          link(['trace', 'provision', t.provisionUid], t.provisionUid),
          t.referenceType,
          t.bundleLabel ?? (t.referenceId ? link(['trace', 'reference', t.referenceId], `action ${t.referenceId}`) : '—'),
          `${t.cost} ${t.costLabel ?? ''}`.trim(),
          t.failureReason ? `${t.status} (${t.failureReason})` : t.status,
          time(t.updateDate),
        ]),
      );
    }),
    section('Timeline', () => timeline(playerId)),
  ];
}

async function level(profile) {
  // A tier that may not read the catalog's levels (Mobile) still sees the player's own.
  const levels = await get('/v1/admin/levels').catch((error) => error);
  const current = profile.level;
  const items = [
    ['Points', String(profile.points)],
    ['Level', current ? `${current.level}: ${current.label}` : 'none yet'],
  ];
  if (levels instanceof Error) return [facts(items), h('p', { class: 'error', role: 'alert' }, `Progress to the next level: ${levels.message}`)];
  const next = levels.filter((l) => l.isActive && l.level > (current?.level ?? 0)).sort((a, b) => a.level - b.level)[0];
  if (!next) return [facts(items), h('p', {}, 'The highest level is reached.')];
  const from = current?.target ?? 0;
  const done = Math.max(0, Math.min(profile.points - from, next.target - from));
  const span = next.target - from;
  const percent = span > 0 ? Math.floor((done / span) * 100) : 100;
  return [
    facts([...items, ['Next level', `${next.level}: ${next.label}, at ${next.target} points`]]),
    h('label', { for: 'level-progress' }, `Progress to level ${next.level}: ${profile.points} of ${next.target} points (${percent}%)`),
    h('progress', { id: 'level-progress', max: span, value: done }, `${percent}%`),
  ];
}

/** The player's stream, oldest first, a page at a time. */
async function timeline(playerId) {
  const list = h('ol', { class: 'timeline' });
  const more = h('button', { type: 'button', class: 'secondary' }, 'Show later events');
  let from = 0;
  const load = async () => {
    const events = await get(`/v1/audit/players/${encodeURIComponent(playerId)}/events`, { from, limit: TIMELINE_PAGE });
    list.append(...events.map(timelineEntry));
    if (events.length) from = events[events.length - 1].revision + 1;
    more.hidden = events.length < TIMELINE_PAGE;
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    await load().finally(() => (more.disabled = false));
  });
  await load();
  return [list, more];
}

function timelineEntry(event) {
  const d = event.data;
  const provision = d.provisionUid ?? d.cost?.provisionUid ?? d.refund?.provisionUid;
  return h(
    'li',
    {},
    h('p', {}, h('strong', {}, words(event.type)), ` at ${time(event.time)}`, h('span', { class: 'muted' }, ` · revision ${event.revision}, position ${event.position}, by key ${event.metadata.keyName}`)),
    d.effects ? h('p', {}, effects(d.effects)) : null,
    h(
      'p',
      { class: 'links' },
      typeof d.referenceId === 'string' ? link(['trace', 'reference', d.referenceId], `Trace of action ${d.referenceId}`) : null,
      typeof provision === 'string' ? link(['trace', 'provision', provision], `Trace of provision ${provision}`) : null,
    ),
  );
}

/** What an event changed, in one line. */
function effects(e) {
  const parts = [];
  if (e.points) parts.push(`points ${signed(e.points)}`);
  for (const b of e.balances) parts.push(`${b.deliverableUid} ${signed(b.amount)}`);
  if (e.powerupsGranted.length) parts.push(`powerups +${e.powerupsGranted.length}`);
  if (e.powerupsRemoved.length) parts.push(`powerups -${e.powerupsRemoved.length}`);
  for (const u of e.powerupUses) parts.push(`powerup ${u.uid} uses ${signed(u.uses)}`);
  return parts.length ? `Changes: ${parts.join(', ')}` : 'No balance change';
}
