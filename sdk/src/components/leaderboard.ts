/**
 * `<gm-leaderboard board="lb-all" top="10" player="…" around="2">`: a board's standings; with
 * `player`, that player's row marked, and with `around`, the player among their neighbours instead
 * of the top. Any key may read boards: a Client key needs no player token.
 */
import type { DataOf, GamificationClient } from '../client.ts';
import type { FeedEvent } from '../feed.ts';
import { amount, escape, GamificationElement } from './element.ts';

type Board = DataOf<'leaderboard'>[number];
type Standing = Board['standings'][number];

export class GmLeaderboard extends GamificationElement<Board> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'board', 'top', 'player', 'around'];
  }

  protected heading(board: Board): string {
    return board.label;
  }

  protected async load(client: GamificationClient): Promise<Board> {
    const player = this.getAttribute('player');
    const around = Number(this.getAttribute('around'));
    const top = Number(this.getAttribute('top'));
    const [board] = await client.leaderboard({
      leaderboardID: this.getAttribute('board') ?? '',
      ...(top > 0 ? { top } : {}),
      ...(player ? { playerId: player } : {}),
      ...(player && around > 0 ? { around } : {}),
    });
    return board;
  }

  /** Any player's action may move the board. */
  protected override concerns(event: FeedEvent): boolean {
    return String(event.data.stream).startsWith('player-');
  }

  protected render(board: Board): string {
    const me = board.player?.userId ?? null;
    const rows: Standing[] = board.around ?? board.standings;
    // Outside the rows shown (the top), the player's own row comes after them.
    const mine =
      me !== null && board.player && !rows.some((r) => 'userId' in r && r.userId === me) ? [board.player] : [];
    if (!rows.length && !mine.length) return `<p class="muted" part="empty">No standings yet.</p>`;
    return `<ol part="list">${[...rows, ...mine].map((r) => row(r, me)).join('')}</ol>`;
  }
}

function row(standing: Standing, me: string | null): string {
  const who = 'userId' in standing ? standing.username || `${standing.userId.slice(0, 8)}…` : standing.scope;
  const id = 'userId' in standing ? standing.userId : standing.scope;
  const mine = 'userId' in standing && standing.userId === me;
  return `<li part="row${mine ? ' me' : ''}"${mine ? ' class="me"' : ''} data-player="${escape(id)}" data-rank="${standing.rank}" data-points="${standing.points}">
<span class="muted">#${standing.rank}</span><span class="grow">${escape(who)}</span><span class="value">${amount(standing.points)}</span></li>`;
}
