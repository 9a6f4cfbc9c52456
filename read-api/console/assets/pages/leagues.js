/**
 * Leagues: each league's current period with its players and cohorts per tier, and one player's
 * standing in it (tier, cohort, rank, zone, the cohort's standings) and their settled periods.
 */
import { get } from '../api.js';
import { facts, field, fill, h, link, section, table, time } from '../dom.js';

export function leaguesPage([leagueUid, playerId]) {
  return [
    section('Leagues', async () => {
      const leagues = await get('/v1/admin/leagues');
      if (leagues.length === 0) return h('p', { class: 'muted' }, 'The catalog has no leagues.');
      return [
        ...leagues.map((l) =>
          table(
            `${l.label} (${l.uid}): ${time(l.period.start)} to ${time(l.period.end)}`,
            ['Tier', 'Players', 'Cohorts'],
            l.tiers.map((t) => [`${t.label} (${t.uid})`, t.players, t.cohorts]),
          ),
        ),
        standingForm(leagues, leagues.find((l) => l.uid === leagueUid) ?? leagues[0], playerId ?? ''),
      ];
    }),
  ];
}

function standingForm(leagues, initial, playerId) {
  const league = h(
    'select',
    { id: 'league' },
    leagues.map((l) => h('option', { value: l.uid, selected: l === initial }, l.label)),
  );
  const player = h('input', {
    id: 'league-player',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 36,
    value: playerId,
  });
  const result = h('div', { 'aria-live': 'polite' });
  const show = () =>
    fill(result, async () => {
      const id = player.value.trim();
      if (!id) return h('p', { class: 'muted' }, 'Enter a player id to see their standing and history.');
      const uid = encodeURIComponent(league.value);
      const [standing, history] = await Promise.all([
        get(`/v1/leagues/${uid}`, { playerId: id }),
        get(`/v1/leagues/${uid}/history`, { playerId: id }),
      ]);
      return [
        facts([
          ['Tier', `${standing.tier.label} (${standing.tier.uid})`],
          ['Cohort', standing.cohort ?? 'not in this period'],
          ['Rank', standing.rank],
          ['Metric', standing.metric],
          ['Zone', standing.zone],
        ]),
        table(
          'Cohort standings',
          ['Rank', 'Player', 'Metric'],
          standing.standings.map((s) => [s.rank, link(['player', s.playerId], s.username), s.metric]),
          'the player is not in the current period.',
        ),
        table(
          'Settled periods, newest first',
          ['Period', 'Tier', 'Cohort', 'Rank', 'Metric', 'Outcome', 'Next tier', 'Prize'],
          history.map((p) => [
            `${time(p.period.start)} to ${time(p.period.end)}`,
            p.tier,
            p.cohort,
            p.rank,
            p.metric,
            p.outcome,
            p.nextTier,
            p.prize
              ? [`${p.prize.points} points`, ...p.prize.deliverables.map((d) => `${d.amount} ${d.deliverable}`)].join(
                  ', ',
                )
              : '—',
          ]),
        ),
      ];
    });
  const form = h(
    'form',
    {
      onsubmit(event) {
        event.preventDefault();
        show();
      },
    },
    field('League', league),
    field('Player id', player, "Shows the player's tier, cohort and rank now, and their settled periods"),
    h('button', { type: 'submit' }, 'Show'),
  );
  if (playerId) show();
  return [form, result];
}
