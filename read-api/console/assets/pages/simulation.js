/** A simulation's report as the console shows it (the Operations page's simulate, the catalog editor's "Try on history"). */
import { post } from '../api.js';
import { facts, h, link, signed, table } from '../dom.js';

/** An invalid draft: each of the service's lines as an item. */
export const refusal = (error) => {
  const lines = error.message.split('\n');
  return h(
    'div',
    { role: 'alert' },
    h(
      'p',
      { class: 'error' },
      `The draft is refused: ${lines.length === 1 ? 'a problem' : `${lines.length} problems`}.`,
    ),
    h(
      'ul',
      { class: 'problems' },
      lines.map((line) => h('li', {}, line)),
    ),
  );
};

const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The usernames of the players a report's boards rank, by id; a player without one (or erased) is left out. */
export async function usernamesOnBoards(s) {
  const ids = [...new Set(s.boards.flatMap((b) => [...b.before, ...b.after].map((e) => e.userId)))];
  const profiles = await Promise.all(ids.map((playerId) => post('/v1/player/profile', { playerId }).catch(() => null)));
  return new Map(profiles.filter((p) => p && p.username !== p.playerId).map((p) => [p.playerId, p.username]));
}

export function simulation(s, usernames) {
  const t = s.totals;
  const standings = (list) =>
    list.map((e) => `${e.rank}. ${usernames.get(e.userId) ?? e.userId} (${e.points})`).join(', ') || 'empty';
  return [
    h(
      'p',
      { role: 'status', class: s.playersAffected === 0 ? 'good' : null },
      `${count(s.playersAffected, 'player')} affected: ${count(s.eventsReplayed, 'event')} replayed, ${count(s.actionsRedecided, 'action')} decided again.`,
    ),
    facts([
      ['Points', `${t.pointsBefore} → ${t.pointsAfter} (${signed(t.pointsAfter - t.pointsBefore)})`],
      ['Badges gained', String(t.badgesGained)],
      ['Badges lost', String(t.badgesLost)],
      ['Levels changed', String(t.levelsChanged)],
    ]),
    table(
      `Affected players, largest change in points first${s.players.length < s.playersAffected ? ` (the first ${s.players.length})` : ''}`,
      ['Player', 'Points', 'Level', 'Badges gained', 'Badges lost', 'Balances'],
      s.players.map((p) => [
        link(['player', p.playerId], p.playerId),
        `${p.pointsBefore} → ${p.pointsAfter}`,
        `${p.levelBefore ?? '—'} → ${p.levelAfter ?? '—'}`,
        p.badgesGained.join(', ') || '—',
        p.badgesLost.join(', ') || '—',
        p.balances.map((b) => `${b.deliverableUid} ${b.before} → ${b.after}`).join(', ') || '—',
      ]),
      'none: the draft changes no player.',
    ),
    table(
      'All-time boards, top 10',
      ['Board', 'Now', 'Under the draft'],
      s.boards.map((b) => [b.leaderboardUid, standings(b.before), standings(b.after)]),
      'the draft has no all-time board.',
    ),
    table(
      'Problems: recorded facts the draft makes impossible (they stand)',
      ['Position', 'Player', 'Event', 'Problem'],
      s.problems.map((p) => [p.position, link(['player', p.playerId], p.playerId), p.type, p.message]),
      'none.',
    ),
  ];
}
