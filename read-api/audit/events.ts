import type { StockUnitsEvent } from '../../command-api/limited-stock/stock-stream';
import type { ProvisionOpened } from '../../command-api/provisions/provision-stream';
import type { CatalogPublished } from '../../command-api/publish-catalog/publish';
import type { RecordedEvent } from '../../shared/event-store/port';
import type { Effects } from '../../shared/events/common';
import type { ChestOpened } from '../../shared/events/inventory-events';
import type { ActionProcessed, ActionReversed } from '../../shared/events/player-events';
import type { BundlePurchased, ProvisionFailed } from '../../shared/events/provision-events';

/** An event as the audit endpoints and the CLI's JSON output show it; `time` is when it was recorded (Unix ms). */
export const auditEvent = (e: RecordedEvent) => ({
  position: e.position,
  stream: e.streamName,
  revision: e.revision,
  id: e.id,
  type: e.type,
  time: e.createdAt,
  data: e.data,
  metadata: e.metadata,
});

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

/** The signed changes of a player event: points, balances, powerups. */
export function effectsSummary(effects: Effects): string {
  const parts: string[] = [];
  if (effects.points !== 0) parts.push(`points ${signed(effects.points)}`);
  for (const b of effects.balances) parts.push(`${b.deliverableUid} ${signed(b.amount)}`);
  if (effects.powerupsGranted.length) parts.push(`powerups +${effects.powerupsGranted.length}`);
  if (effects.powerupsRemoved.length) parts.push(`powerups -${effects.powerupsRemoved.length}`);
  for (const u of effects.powerupUses) parts.push(`powerup ${u.uid} uses ${signed(u.uses)}`);
  return parts.join(', ');
}

/** One line: what the event says in domain words, then its changes in brackets. */
export function summarizeEvent(event: RecordedEvent): string {
  const data = event.data as { effects?: Effects };
  const effects = data.effects ? effectsSummary(data.effects) : '';
  const what = describe(event);
  return effects ? `${what} [${effects}]` : what;
}

function describe({ type, data }: RecordedEvent): string {
  const d = data as Record<string, unknown>;
  switch (type) {
    case 'PlayerRegistered':
      return `player ${d.playerId} "${d.username}"`;
    case 'ActionProcessed': {
      const e = data as ActionProcessed;
      const awards = e.awards.map((a) => `${a.kind} ${a.uid}${a.rank ? ` rank ${a.rank.rank}` : ''}`);
      const levels = e.levels.map((l) => `level ${l.level}`);
      const cost = e.cost ? [`cost ${e.cost.amount} ${e.cost.deliverableUid} (provision ${e.cost.provisionUid})`] : [];
      return [`${e.actionName} ref ${e.referenceId}`, ...awards, ...levels, ...cost].join(', ');
    }
    case 'ActionReversed': {
      const e = data as ActionReversed;
      const revoked = e.revokedAwards.map((a) => `revoked ${a.kind} ${a.uid}${a.rank !== null ? ` rank ${a.rank}` : ''} of ${a.awardedBy}`);
      const levels = e.revokedLevels.map((l) => `revoked level ${l.level}`);
      const refund = e.refund ? [`refund ${e.refund.amount} ${e.refund.deliverableUid} (provision ${e.refund.provisionUid})`] : [];
      return [`${e.actionName} ref ${e.referenceId}`, ...revoked, ...levels, ...refund].join(', ');
    }
    case 'BundlePurchased': {
      const e = data as BundlePurchased;
      return `bundle ${e.bundleUid} provision ${e.provisionUid} ${e.status}, cost ${e.cost.amount}${e.cost.deliverableUid ? ` ${e.cost.deliverableUid}` : ''}`;
    }
    case 'ProvisionFailed':
      return `provision ${d.provisionUid} ${(data as ProvisionFailed).reason}`;
    case 'ProvisionCompleted':
    case 'ProvisionRefunded':
      return `provision ${d.provisionUid}`;
    case 'ProvisionOpened': {
      const e = data as ProvisionOpened;
      return `provision ${e.provisionUid} ${e.referenceType}${e.bundleUid ? ` bundle ${e.bundleUid}` : ''} player ${e.playerId}`;
    }
    case 'ReferenceReserved':
      return `ref ${d.referenceId} ${d.actionName} player ${d.playerId}`;
    case 'ReferenceCompleted':
      return `ref ${d.referenceId} player revision ${d.playerRevision}`;
    case 'ReferenceReleased':
      return `ref ${d.referenceId}: ${d.reason}`;
    case 'CatalogPublished': {
      const e = data as CatalogPublished;
      return `version ${e.version} hash ${e.hash.slice(0, 12)}`;
    }
    case 'ChestOpened': {
      const e = data as ChestOpened;
      return `${e.chestDeliverableUid} opening ${e.openingUid}, prizes ${e.prizes.map((p) => `${p.amount} ${p.reward}`).join(' ') || 'none'}`;
    }
    default:
      // Stock units (trigger activations, bundle and chest stock) share one shape.
      if (typeof d.holder === 'string') {
        const e = data as StockUnitsEvent;
        return `${e.units} of ${e.resourceUid} held by ${e.holder}`;
      }
      if (typeof d.powerupUid === 'string') return `powerup ${d.powerupUid}`;
      return Object.entries(d)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
  }
}
