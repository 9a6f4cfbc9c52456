/**
 * Leaderboards: a board's standings for a season (and, on a scoped board, a value of its scope),
 * ties sharing a rank, and one player with their neighbours; an aggregate board ranks the values.
 */
import { get } from '../api.js';
import { field, fill, h, link, section, table } from '../dom.js';

const SEASON_BOARD = 1;
/** Rows shown above and below a looked-up player. */
const NEIGHBOURS = 5;
/** The most values an aggregate board's standings answer at once: those offered for a scoped board. */
const MOST_VALUES = 1000;

export function leaderboardsPage([boardUid]) {
  return section('Standings', async () => {
    const boards = await get('/v1/admin/leaderboards');
    if (boards.length === 0) return h('p', { class: 'muted' }, 'The catalog has no leaderboards.');
    return standingsForm(boards, boards.find((b) => b.uid === boardUid) ?? boards[0]);
  });
}

function standingsForm(boards, initial) {
  const board = h(
    'select',
    { id: 'board' },
    boards.map((b) => h('option', { value: b.uid, selected: b === initial }, b.label)),
  );
  const season = h('input', {
    id: 'season',
    list: 'season-periods',
    placeholder: 'current season',
    autocomplete: 'off',
  });
  const seasonField = field(
    'Season',
    season,
    'A day (2026-11-21), week (2026-W47) or month (2026-11); empty for the current one',
  );
  const scope = h('input', { id: 'scope', list: 'scope-values', autocomplete: 'off', spellcheck: 'false' });
  const scopeField = field('Scope', scope, 'The value whose standings to show, e.g. DE for a board scoped by country');
  const scopeValues = h('datalist', { id: 'scope-values' });
  const top = h('input', { id: 'top', type: 'number', min: 1, max: 1000, value: 10 });
  const player = h('input', { id: 'standing-player', autocomplete: 'off', spellcheck: 'false', size: 36 });
  const playerField = field(
    'Player id',
    player,
    `Shows that player with the ${NEIGHBOURS} above and below them, even outside the top`,
  );
  const result = h('div', { 'aria-live': 'polite' });
  const selected = () => boards.find((b) => b.uid === board.value);
  /** A scoped board keeps one standings per value; an aggregate one ranks the values in one list. */
  const perValue = (b) => Boolean(b.scope) && !b.aggregate;
  const show = () =>
    fill(result, async () => {
      const chosen = selected();
      if (perValue(chosen) && !scope.value.trim())
        return h('p', { class: 'muted' }, `This board keeps standings per ${chosen.scope}: enter a value.`);
      const [view] = await get(`/v1/admin/leaderboards/${encodeURIComponent(chosen.uid)}`, {
        top: top.value,
        season: chosen.type === SEASON_BOARD ? season.value.trim() : undefined,
        scope: perValue(chosen) ? scope.value.trim() : undefined,
        playerId: chosen.aggregate ? undefined : player.value.trim(),
        around: player.value.trim() && !chosen.aggregate ? NEIGHBOURS : undefined,
      });
      return chosen.aggregate ? valueStandings(view) : standings(view, player.value.trim());
    });
  /**
   * The values a scoped board's field offers: no read lists a board's values, but an aggregate board
   * of the same scope ranks them (those with a score in its current season); any other is typed.
   */
  const offerValues = async (chosen) => {
    scopeValues.replaceChildren();
    const ranking = perValue(chosen) && boards.find((b) => b.aggregate && b.scope === chosen.scope);
    if (!ranking) return;
    const [view] = await get(`/v1/admin/leaderboards/${encodeURIComponent(ranking.uid)}`, { top: MOST_VALUES });
    // Another board may have been chosen meanwhile.
    if (selected() === chosen)
      scopeValues.replaceChildren(...view.standings.map((s) => h('option', { value: s.scope })));
  };
  const seasonal = () => {
    const chosen = selected();
    seasonField.hidden = chosen.type !== SEASON_BOARD;
    scopeField.hidden = !perValue(chosen);
    scopeField.querySelector('label').textContent = chosen.scope ? `Scope (${chosen.scope})` : 'Scope';
    playerField.hidden = Boolean(chosen.aggregate);
    // Offering values is a help: the field takes any value typed whether or not they came.
    offerValues(chosen).catch(() => {});
  };
  board.addEventListener('change', () => {
    seasonal();
    show();
  });
  seasonal();
  show();
  return [
    h(
      'form',
      {
        class: 'inline',
        onsubmit(event) {
          event.preventDefault();
          show();
        },
      },
      field('Board', board),
      scopeField,
      scopeValues,
      seasonField,
      h(
        'datalist',
        { id: 'season-periods' },
        recentPeriods().map((p) => h('option', { value: p })),
      ),
      field('Top', top),
      playerField,
      h('button', { type: 'submit' }, 'Show'),
    ),
    result,
  ];
}

function standings(view, playerId) {
  const rowsOf = (list) => {
    const shared = new Map();
    for (const s of list) shared.set(s.rank, (shared.get(s.rank) ?? 0) + 1);
    const rank = (s) => (shared.get(s.rank) > 1 ? `${s.rank} (tied)` : String(s.rank));
    // The looked-up player's own row says so, in the neighbours' table.
    return list.map((s) => [
      rank(s),
      link(
        ['player', s.userId],
        s.userId === view.player?.userId && list === view.around ? `${s.username} (this player)` : s.username,
      ),
      s.points,
    ]);
  };
  return [
    view.description ? h('p', {}, view.description) : null,
    table(
      `${view.label}: the top ${view.standings.length}`,
      ['Rank', 'Player', 'Points'],
      rowsOf(view.standings),
      'no player has a score yet.',
    ),
    playerId
      ? view.player
        ? table('The player and their neighbours', ['Rank', 'Player', 'Points'], rowsOf(view.around ?? [view.player]))
        : h('p', { class: 'muted' }, `Player ${playerId} has no score on this board.`)
      : null,
  ];
}

/** An aggregate board: the values of its scope, each with its players' total. */
function valueStandings(view) {
  return [
    view.description ? h('p', {}, view.description) : null,
    table(
      `${view.label}: the top ${view.standings.length}`,
      ['Rank', view.scope, 'Points'],
      view.standings.map((s) => [String(s.rank), s.scope, s.points]),
      `no ${view.scope} has a score yet.`,
    ),
  ];
}

/** Suggestions for the season field: the last days, ISO weeks and months (UTC). */
function recentPeriods() {
  const day = 86_400_000;
  const now = Date.now();
  const days = [0, 1, 2].map((n) => new Date(now - n * day).toISOString().slice(0, 10));
  const weeks = [0, 1, 2, 3].map((n) => isoWeek(new Date(now - n * 7 * day)));
  const months = [0, 1, 2].map((n) => {
    const d = new Date(now);
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() - n);
    return d.toISOString().slice(0, 7);
  });
  return [...days, ...weeks, ...months];
}

/** `2026-W47`: the week's Thursday decides its year. */
function isoWeek(date) {
  const thursday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  thursday.setUTCDate(thursday.getUTCDate() + 3 - ((thursday.getUTCDay() + 6) % 7));
  const firstOfYear = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday - firstOfYear) / 86_400_000 / 7) + 1;
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}
