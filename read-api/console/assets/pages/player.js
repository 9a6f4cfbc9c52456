/**
 * A player: level and progress to the next, points, badges and ranks, balances and lots expiring next, attributes, streaks, caps used
 * this period, missions, chests, powerups, transactions, the events of their stream, each linked to its trace, and
 * (Server keys) the support actions.
 */
import { get, post } from '../api.js';
import { facts, field, fill, h, link, section, signed, table, time, words, yesNo } from '../dom.js';
import { activityChart } from './player-activity.js';
import { supportActions } from './player-support.js';

/** Events of the timeline asked for at a time. */
const TIMELINE_PAGE = 100;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** `#/player/<id>`, or `#/player/find/<start of a username>`: the players whose name starts so. */
export function playerPage([playerId, name]) {
  const input = h('input', {
    id: 'player-id',
    value: (playerId === 'find' ? name : playerId) ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 40,
    required: true,
  });
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit(event) {
        event.preventDefault();
        const text = input.value.trim();
        location.hash = UUID.test(text)
          ? `#/player/${encodeURIComponent(text)}`
          : `#/player/find/${encodeURIComponent(text)}`;
      },
    },
    field('Player id or username', input, 'A username finds the players whose name starts with it'),
    h('button', { type: 'submit' }, 'Look up'),
  );
  if (!playerId) return form;
  if (playerId === 'find') return [form, found(name ?? '')];
  const page = h('div');
  // The profile first: a player it does not find (or an id it refuses) is one message, not one per section.
  const show = (notice) =>
    fill(page, async () => {
      const found = await post('/v1/player/profile', { playerId }).catch((error) => error);
      if (found instanceof Error) return h('p', { class: 'error', role: 'alert' }, await refusal(playerId, found));
      return [notice, sections(playerId, found, show)];
    });
  show(null);
  return [form, page];
}

/**
 * Why the profile refused the player. It answers an erased player as an unknown one (5003); their
 * stream still holds the erasure (read by operator keys; any other key sees an unknown player).
 */
async function refusal(playerId, error) {
  if (error.code !== 5003) return error.message;
  const latest = await get(`/v1/audit/players/${encodeURIComponent(playerId)}/events`, {
    last: 'true',
    limit: TIMELINE_PAGE,
  }).catch(() => []);
  const erasure = latest.find((e) => e.type === 'PlayerErased');
  return erasure ? `This player was erased at ${time(erasure.data.erasedAt)}.` : `No player has the id ${playerId}.`;
}

function found(name) {
  return section('Players found', async () => {
    const players = await get('/v1/admin/players', { username: name });
    return table(
      `Players whose username starts with "${name}"`,
      ['Username', 'Player id'],
      players.map((p) => [link(['player', p.playerId], p.username), h('code', {}, p.playerId)]),
      'No player has a username starting so.',
    );
  });
}

function sections(playerId, found, reload) {
  const profile = Promise.resolve(found);
  return [
    h(
      'div',
      { class: 'columns' },
      section('Level and points', async () => level(await profile)),
      section('Balances', async () => {
        const { balances, expiring } = await profile;
        const labels = labelsOf(await profile);
        return [
          table(
            'What the player holds',
            ['Deliverable', 'Uid', 'Amount'],
            balances.map((b) => [b.label, h('code', {}, b.deliverableUid), b.amount]),
          ),
          table(
            'Lots expiring next',
            ['Deliverable', 'Amount', 'Expires at'],
            expiring.map((l) => [labels.get(l.deliverableUid) ?? l.deliverableUid, l.amount, time(l.expiresAt)]),
            'none.',
          ),
        ];
      }),
      section('Attributes', async () => {
        const { attributes } = await profile;
        return table(
          "The player's attributes (leaderboard scopes)",
          ['Name', 'Value'],
          Object.entries(attributes).map(([name, value]) => [h('code', {}, name), value]),
          'none.',
        );
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
          streaks.map((s) => [
            s.label,
            s.length,
            s.longest,
            s.freezes,
            s.lastPeriod ?? '—',
            s.breaksAt === null ? '—' : time(s.breaksAt),
          ]),
        );
      }),
      section('Caps used this period', async () => {
        const { caps, timeZone } = await profile;
        return [
          table(
            'Caps with a use this period',
            ['Cap', 'Of', 'Period', 'Used', 'Limit'],
            caps.map((c) => [c.kind, h('code', {}, c.of), `${c.period} ${c.periodName}`, c.used, c.limit]),
          ),
          h('p', { class: 'muted' }, `Periods of the player's calendar, in ${timeZone}.`),
        ];
      }),
    ),
    section('Missions', async () => {
      const missions = await post('/v1/missions/list', { playerId });
      return table(
        "The player's missions",
        ['Mission', 'Status', 'Steps', 'Period', 'Completed at'],
        missions.map((m) => [
          m.label,
          missionStatus(m),
          // A summed step shows its sum against the target, any other its count.
          m.steps
            .map(
              (s) =>
                `${s.label} ${s.completed ? '✓' : `${s.progress.sum > 0 ? s.progress.sum : s.progress.count}/${s.progress.target}`}`,
            )
            .join(', '),
          m.period ?? '—',
          m.completedAt === null ? '—' : time(m.completedAt),
        ]),
      );
    }),
    section('Badges and ranks', async () => {
      const { badges } = await profile;
      return table(
        'Badges earned',
        ['Badge', 'Type', 'Times', 'Rank'],
        badges.map((b) => [b.label, b.type, b.count, b.rank ? `${b.rank.rank}: ${b.rank.label}` : '—']),
      );
    }),
    h(
      'div',
      { class: 'columns' },
      section('Chests', async () => {
        const chests = await post('/v1/chest/list', { playerId });
        return table(
          'Chests owned',
          ['Chest', 'Balance', 'Scaling', 'Odds'],
          chests.map((c) => [
            c.label,
            c.balance,
            c.scalingMode,
            link(['catalog', 'chest', c.chestDeliverableUid], `Odds of ${c.label}`),
          ]),
        );
      }),
      section('Powerups', async () => {
        const powerups = await post('/v1/powerup/list', { playerId });
        return table(
          'Powerups owned',
          ['Powerup', 'Multiplier', 'Activated', 'Uses left', 'Expires'],
          powerups.map((p) => [
            p.prizeLabel,
            `×${p.multiplier}`,
            yesNo(p.isActivated),
            p.powerupMaxUseCount === 0 ? 'unlimited' : p.remainingUseCount,
            p.neverExpires ? 'never' : p.expiresAt ? time(p.expiresAt * 1000) : 'when activated',
          ]),
        );
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
          t.bundleLabel ??
            (t.referenceId ? link(['trace', 'reference', t.referenceId], `action ${t.referenceId}`) : '—'),
          `${t.cost} ${t.costLabel ?? ''}`.trim(),
          t.failureReason ? `${t.status} (${t.failureReason})` : t.status,
          time(t.updateDate),
        ]),
      );
    }),
    section('Timeline', async () => timeline(playerId, labelsOf(await profile))),
    section('Support', () => supportActions(playerId, found, reload)),
  ];
}

/**
 * A mission's status, saying why one in progress has every step met: a reversal took back the
 * completion its action made, and the next action meeting a step completes it again (docs/catalog.md, Reversal).
 */
const missionStatus = (m) =>
  m.status === 'InProgress' && m.steps.every((s) => s.completed)
    ? 'InProgress: every step met, its completion taken back by a reversal; the next action meeting a step completes it'
    : m.status;

async function level(profile) {
  // A tier that may not read the catalog's levels (Mobile) still sees the player's own.
  const levels = await get('/v1/admin/levels').catch((error) => error);
  const current = profile.level;
  const items = [
    ['Username', profile.username],
    ['Points', String(profile.points)],
    ['Level', current ? `${current.level}: ${current.label}` : 'none yet'],
  ];
  if (levels instanceof Error)
    return [facts(items), h('p', { class: 'error', role: 'alert' }, `Progress to the next level: ${levels.message}`)];
  const next = levels.filter((l) => l.isActive && l.level > (current?.level ?? 0)).sort((a, b) => a.level - b.level)[0];
  if (!next) return [facts(items), h('p', {}, 'The highest level is reached.')];
  const from = current?.target ?? 0;
  const done = Math.max(0, Math.min(profile.points - from, next.target - from));
  const span = next.target - from;
  const percent = span > 0 ? Math.floor((done / span) * 100) : 100;
  return [
    facts([...items, ['Next level', `${next.level}: ${next.label}, at ${next.target} points`]]),
    // One figure, said with what it is of: the share of the way between the two levels' targets.
    h(
      'label',
      { for: 'level-progress' },
      `Progress to level ${next.level}: ${profile.points} of ${next.target} points, ${percent}% of the way from level ${current?.level ?? 0} to ${next.level}`,
    ),
    h('progress', { id: 'level-progress', max: span, value: done }, `${percent}%`),
  ];
}

/** Deliverable labels by uid, from what the player holds (the profile's balances). */
const labelsOf = (profile) => new Map(profile.balances.map((b) => [b.deliverableUid, b.label]));

/** The player's stream, newest first, a page at a time. */
async function timeline(playerId, labels) {
  const list = h('ol', { class: 'timeline' });
  const more = h('button', { type: 'button', class: 'secondary' }, 'Show earlier events');
  const path = `/v1/audit/players/${encodeURIComponent(playerId)}/events`;
  let oldest = 0;
  const show = (events) => {
    list.append(...[...events].reverse().map((e) => timelineEntry(e, labels)));
    if (events.length) oldest = events[0].revision;
    more.hidden = oldest === 0;
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    const from = Math.max(0, oldest - TIMELINE_PAGE);
    await get(path, { from, limit: oldest - from })
      .then(show)
      .finally(() => (more.disabled = false));
  });
  show(await get(path, { last: 'true', limit: TIMELINE_PAGE }));
  return [list, more];
}

/** What an action earned and did, or a chest gave, by name and label. */
function earned(type, d, labels) {
  const labelled = (list) => list.map((g) => `${g.label} × ${g.amount}`).join(', ');
  if (type === 'ActionProcessed') {
    const r = d.result;
    const awards = [
      ...(r.badges ?? []).map((b) => `badge ${b.label}`),
      ...(r.triggers ?? []).map((t) => `trigger ${t.label}`),
      ...(r.achievedLevel ? [`level ${r.achievedLevel.level}: ${r.achievedLevel.label}`] : []),
    ];
    const grants = r.deliverables?.length ? `; ${labelled(r.deliverables)}` : '';
    const more = [...(awards.length ? [awards.join(', ')] : []), ...marks(r, labels)];
    return `${d.actionName}: earned ${r.earnedPoints} points${grants}${more.map((m) => `; ${m}`).join('')}`;
  }
  if (type === 'ChestOpened') return `${d.chestLabel}: ${labelled(d.prizes)}`;
  if (type === 'PlayerAdjusted') return `Adjusted by key ${d.keyName}: “${d.reason}”`;
  return null;
}

/**
 * What else an action did, as its result recorded it: the caps that cut what it earned, the streaks
 * it extended or whose milestone it reached, the missions it advanced or completed.
 */
function marks(result, labels) {
  const capped = (result.capped ?? []).map((c) => {
    const of = c.kind === 'earn' ? `${labels.get(c.deliverable) ?? c.deliverable} earned` : c.kind;
    return `capped at ${c.limit} ${of} a ${c.period}`;
  });
  const streaks = (result.streaks ?? []).flatMap((s) => [
    ...(s.extended ? [`streak ${s.label} extended to ${s.length}`] : []),
    ...s.milestones.map((m) => `streak ${s.label} milestone ${m.length} reached`),
  ]);
  const missions = (result.missions ?? []).map((m) =>
    m.completed
      ? `mission ${m.label} completed`
      : `mission ${m.label} advanced: ${m.stepsCompleted} of ${m.stepsTotal} steps done`,
  );
  return [...capped, ...streaks, ...missions];
}

/** An action processed this long after (or before) its timestamp shows both. */
const SAME_TIME_MS = 1000;

/**
 * When an entry happened: an action at its own timestamp (what its rules went by), and when it was
 * processed if that is a second or more apart (an action delivered late, or back-dated by a Server key).
 */
function when(event) {
  const processed = ` at ${time(event.time)}`;
  if (event.type !== 'ActionProcessed') return processed;
  const happened = ` at ${time(event.data.timestamp)}`;
  return Math.abs(event.time - event.data.timestamp) < SAME_TIME_MS ? happened : `${happened}, processed${processed}`;
}

function timelineEntry(event, labels) {
  const d = event.data;
  const provision = d.provisionUid ?? d.cost?.provisionUid ?? d.refund?.provisionUid;
  const what = earned(event.type, d, labels);
  return h(
    'li',
    {},
    h(
      'p',
      {},
      h('strong', {}, words(event.type)),
      when(event),
      h(
        'span',
        { class: 'muted' },
        ` · revision ${event.revision}, position ${event.position}, by key ${event.metadata.keyName}`,
      ),
    ),
    what ? h('p', {}, what) : null,
    d.effects ? h('p', {}, effects(d.effects, labels)) : null,
    h(
      'p',
      { class: 'links' },
      typeof d.referenceId === 'string'
        ? link(['trace', 'reference', d.referenceId], `Trace of action ${d.referenceId}`)
        : null,
      typeof provision === 'string' ? link(['trace', 'provision', provision], `Trace of provision ${provision}`) : null,
      typeof d.openingUid === 'string'
        ? link(['trace', 'opening', d.openingUid, d.playerId], `Trace of chest opening ${d.openingUid}`)
        : null,
      typeof d.adjustmentUid === 'string'
        ? link(['trace', 'adjustment', d.adjustmentUid, d.playerId], `Trace of adjustment ${d.adjustmentUid}`)
        : null,
    ),
  );
}

/** What an event changed, in one line. */
function effects(e, labels) {
  const parts = [];
  if (e.points) parts.push(`points ${signed(e.points)}`);
  for (const b of e.balances) parts.push(`${labels.get(b.deliverableUid) ?? b.deliverableUid} ${signed(b.amount)}`);
  if (e.powerupsGranted.length) parts.push(`powerups +${e.powerupsGranted.length}`);
  if (e.powerupsRemoved.length) parts.push(`powerups -${e.powerupsRemoved.length}`);
  for (const u of e.powerupUses) parts.push(`powerup ${u.uid} uses ${signed(u.uses)}`);
  return parts.length ? `Changes: ${parts.join(', ')}` : 'No balance change';
}
