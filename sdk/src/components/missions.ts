/** `<gm-missions player="…">`: each mission open now, its status and its steps' progress in the current period. */
import type { DataOf, GamificationClient } from '../client.ts';
import { escape, GamificationElement } from './element.ts';

type Missions = DataOf<'playerMissions'>;

const STATUS: Readonly<Record<string, string>> = {
  Completed: 'Completed',
  InProgress: 'In progress',
  Locked: 'Locked',
};

export class GmMissions extends GamificationElement<Missions> {
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'player'];
  }

  protected heading(): string {
    return 'Missions';
  }

  protected load(client: GamificationClient): Promise<Missions> {
    return client.playerMissions({ playerId: this.getAttribute('player') ?? '' });
  }

  protected render(missions: Missions): string {
    if (!missions.length) return `<p class="muted" part="empty">No missions now.</p>`;
    return `<ul part="list">${missions
      .map((m) => {
        const done = m.steps.filter((s) => s.completed).length;
        return `<li part="mission" class="stack" data-mission="${escape(m.missionUid)}" data-status="${m.status}">
<div class="row"><span class="grow">${escape(m.label)}</span><span class="${m.status === 'Completed' ? 'done' : 'muted'}">${STATUS[m.status] ?? m.status}</span><span class="value">${done}/${m.steps.length}</span></div>
<progress part="progress" max="${Math.max(1, m.steps.length)}" value="${done}"></progress></li>`;
      })
      .join('')}</ul>`;
  }
}
