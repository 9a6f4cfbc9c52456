/** `<gm-streaks player="…">`: each active streak's run, the longest, and the freezes held. */
import type { DataOf, GamificationClient } from '../client.ts';
import { escape, GamificationElement } from './element.ts';

type Streaks = DataOf<'playerStreaks'>;

export class GmStreaks extends GamificationElement<Streaks> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'player'];
  }

  protected heading(): string {
    return 'Streaks';
  }

  protected load(client: GamificationClient): Promise<Streaks> {
    return client.playerStreaks({ playerId: this.getAttribute('player') ?? '' });
  }

  protected render(streaks: Streaks): string {
    if (!streaks.length) return `<p class="muted" part="empty">No streaks.</p>`;
    return `<ul part="list">${streaks
      .map(
        (s) =>
          `<li part="streak" data-streak="${escape(s.streakUid)}" data-length="${s.length}"><span class="grow">${escape(s.label)}</span><span class="value">${s.length}</span><span class="muted">${unit(s.period, s.length)} · best ${s.longest}${
            s.freezes ? ` · ${s.freezes} ❄` : ''
          }</span></li>`,
      )
      .join('')}</ul>`;
  }
}

const unit = (period: string, n: number): string =>
  `${{ Day: 'day', Week: 'week', Month: 'month' }[period] ?? period.toLowerCase()}${n === 1 ? '' : 's'}`;
