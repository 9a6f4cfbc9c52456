/** `<gm-profile player="…">`: the player's level, points and balances (a Client key needs the player's token). */
import type { DataOf, GamificationClient } from '../client.ts';
import { amount, escape, GamificationElement } from './element.ts';

type Profile = DataOf<'playerProfile'>;

export class GmProfile extends GamificationElement<Profile> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'player'];
  }

  protected heading(profile: Profile): string {
    return profile.username || 'Profile';
  }

  protected load(client: GamificationClient): Promise<Profile> {
    return client.playerProfile({ playerId: this.getAttribute('player') ?? '' });
  }

  protected render(profile: Profile): string {
    const level = profile.level
      ? `<span part="level" data-level="${profile.level.level}">Level ${profile.level.level} · ${escape(profile.level.label)}</span>`
      : `<span part="level" class="muted">No level yet</span>`;
    const balances = profile.balances.length
      ? `<ul part="balances">${profile.balances
          .map(
            (b) =>
              `<li part="balance" data-deliverable="${escape(b.deliverableUid)}" data-amount="${b.amount}"><span class="grow">${escape(b.label)}</span><span class="value">${amount(b.amount)}</span></li>`,
          )
          .join('')}</ul>`
      : `<p class="muted" part="empty">No balances yet.</p>`;
    return `<p>${level}</p>
<p part="points" data-points="${profile.points}"><span class="value">${amount(profile.points)}</span> points</p>
${balances}`;
  }
}
