/** `<gm-badges player="…">`: the badges the player holds, with how many times and the highest rank (a Client key needs the player's token). */
import type { DataOf, GamificationClient } from '../client.ts';
import { escape, GamificationElement } from './element.ts';

type Badges = DataOf<'playerProfile'>['badges'];

export class GmBadges extends GamificationElement<Badges> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'player'];
  }

  protected heading(): string {
    return 'Badges';
  }

  protected async load(client: GamificationClient): Promise<Badges> {
    return (await client.playerProfile({ playerId: this.getAttribute('player') ?? '' })).badges;
  }

  protected render(badges: Badges): string {
    if (!badges.length) return `<p class="muted" part="empty">No badges yet.</p>`;
    return `<ul part="list">${badges
      .map(
        (b) =>
          `<li part="badge" data-badge="${escape(b.uid)}" data-count="${b.count}"><span class="grow">${escape(b.label)}</span>${
            b.rank ? `<span class="muted">${escape(b.rank.label)}</span>` : ''
          }${b.count > 1 ? `<span class="value">×${b.count}</span>` : ''}</li>`,
      )
      .join('')}</ul>`;
  }
}
