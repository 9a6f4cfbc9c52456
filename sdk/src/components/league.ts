/**
 * `<gm-league league="lg-weekly" player="…">`: the player's place in a league's current period:
 * their tier, rank and zone, the time left, and their cohort's standings with their row marked.
 * Any key may read leagues: a Client key needs no player token.
 */
import type { DataOf, GamificationClient } from '../client.ts';
import type { FeedEvent } from '../feed.ts';
import { amount, escape, GamificationElement } from './element.ts';

type League = DataOf<'league'>;

/** Each zone's words, and its colour's class: promotion in --gm-success, demotion in --gm-error. */
const ZONES: Record<NonNullable<League['zone']>, { text: string; tone: string }> = {
  Promotion: { text: 'promotion zone', tone: 'done' },
  Safe: { text: 'safe', tone: '' },
  Demotion: { text: 'demotion zone', tone: 'error' },
};

export class GmLeague extends GamificationElement<League> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'league', 'player'];
  }

  protected heading(league: League): string {
    return `${league.league.label} · ${league.tier.label}`;
  }

  protected load(client: GamificationClient): Promise<League> {
    return client.league({ leagueUid: this.getAttribute('league') ?? '', playerId: this.getAttribute('player') ?? '' });
  }

  /** Any player's action may move the cohort, and the settlement writes on the league's streams. */
  protected override concerns(event: FeedEvent): boolean {
    const stream = String(event.data.stream);
    return stream.startsWith('player-') || stream.startsWith(`league-${this.getAttribute('league')}/`);
  }

  protected render(league: League): string {
    const left = `<span class="muted" part="ends" data-ends="${league.period.end}">ends ${escape(new Date(league.period.end).toLocaleString())}</span>`;
    if (league.rank === null || league.zone === null)
      return `<p class="muted" part="empty">Not in this period yet: an action enters ${escape(league.tier.label)}.</p>${left}`;
    const me = this.getAttribute('player')?.toLowerCase();
    const summary = `<p class="row" part="summary" data-rank="${league.rank}" data-zone="${league.zone}"><span class="value">#${league.rank}</span><span class="grow ${ZONES[league.zone].tone}" part="zone">${ZONES[league.zone].text}</span>${left}</p>`;
    const rows = league.standings
      .map((s) => {
        const mine = s.playerId.toLowerCase() === me;
        return `<li part="row${mine ? ' me' : ''}"${mine ? ' class="me"' : ''} data-player="${escape(s.playerId)}" data-rank="${s.rank}" data-metric="${s.metric}"><span class="muted">#${s.rank}</span><span class="grow">${escape(s.username || `${s.playerId.slice(0, 8)}…`)}</span><span class="value">${amount(s.metric)}</span></li>`;
      })
      .join('');
    return `${summary}<ol part="list">${rows}</ol>`;
  }
}
