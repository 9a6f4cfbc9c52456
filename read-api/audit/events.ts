import type { RecordedEvent } from '../../shared/adapters/event-store/port';
import { domainEventOf, type DomainEvent } from '../../domain/events';
import type { Effects } from '../../domain/events/common';

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
export function summarizeEvent(recorded: RecordedEvent): string {
  const event = domainEventOf(recorded);
  if (!event) return `${recorded.type} (not known to this version)`;
  const effects = 'effects' in event.data ? effectsSummary(event.data.effects) : '';
  const what = describe(event);
  return effects ? `${what} [${effects}]` : what;
}

function describe(event: DomainEvent): string {
  switch (event.type) {
    case 'PlayerRegistered':
      return `player ${event.data.playerId} "${event.data.username}"`;
    case 'PlayerUpdated':
      return `player ${event.data.playerId} "${event.data.username}" time zone ${event.data.timeZone ?? 'of the catalog'}`;
    case 'PlayerErased':
      return `player ${event.data.playerId} erased`;
    case 'PlayerAdjusted': {
      const e = event.data;
      const levels = e.levels.map((l) => `level ${l.level}`);
      return [`adjustment ${e.adjustmentUid} by ${e.keyName}: "${e.reason}"`, ...levels].join(', ');
    }
    case 'ActionProcessed': {
      const e = event.data;
      const awards = e.awards.map((a) => `${a.kind} ${a.uid}${a.rank ? ` rank ${a.rank.rank}` : ''}`);
      const levels = e.levels.map((l) => `level ${l.level}`);
      const cost = e.cost ? [`cost ${e.cost.amount} ${e.cost.deliverableUid} (provision ${e.cost.provisionUid})`] : [];
      const streaks = (e.streaks ?? []).map((s) => {
        const freezes = s.freezesUsed ? ` (${s.freezesUsed} freeze${s.freezesUsed > 1 ? 's' : ''} used)` : '';
        return `streak ${s.uid} length ${s.length}${freezes}${s.milestones.map((m) => ` milestone ${m.length}`).join('')}`;
      });
      const missions = (e.result.missions ?? []).map(
        (m) => `mission ${m.uid} ${m.stepsCompleted}/${m.stepsTotal}${m.completed ? ' completed' : ''}`,
      );
      const capped = (e.result.capped ?? []).map(
        (c) => `capped: ${c.kind}${c.deliverable ? ` of ${c.deliverable}` : ''} ${c.limit} a ${c.period}`,
      );
      return [
        `${e.actionName} ref ${e.referenceId}`,
        ...awards,
        ...levels,
        ...streaks,
        ...missions,
        ...cost,
        ...capped,
      ].join(', ');
    }
    case 'ActionReversed': {
      const e = event.data;
      const revoked = e.revokedAwards.map(
        (a) => `revoked ${a.kind} ${a.uid}${a.rank !== null ? ` rank ${a.rank}` : ''} of ${a.awardedBy}`,
      );
      const levels = e.revokedLevels.map((l) => `revoked level ${l.level}`);
      levels.push(
        ...(e.revokedMilestones ?? []).map(
          (m) => `revoked milestone ${m.length} of streak ${m.streakUid} of ${m.awardedBy}`,
        ),
      );
      levels.push(...(e.revokedMissions ?? []).map((m) => `revoked mission ${m.missionUid} of ${m.awardedBy}`));
      const refund = e.refund
        ? [`refund ${e.refund.amount} ${e.refund.deliverableUid} (provision ${e.refund.provisionUid})`]
        : [];
      return [`${e.actionName} ref ${e.referenceId}`, ...revoked, ...levels, ...refund].join(', ');
    }
    case 'LeagueFinished': {
      const e = event.data;
      const prize = e.prize
        ? `, prize ${e.prize.points} points${e.grants.map((g) => `, ${g.amount} ${g.uid}`).join('')}`
        : '';
      return `league ${e.leagueUid} period ${e.period.start} ${e.tier} cohort ${e.cohort} rank ${e.rank} (${e.metric}): ${e.outcome} to ${e.nextTier}${prize}`;
    }
    case 'LeaderboardSeasonFinished': {
      const e = event.data;
      const grants = e.grants.map((g) => `, ${g.amount} ${g.uid}`).join('');
      return `leaderboard ${e.leaderboardUid} season ${e.season} rank ${e.rank} (${e.score}): prize ${e.prize.points} points${grants}`;
    }
    case 'LeaderboardSeasonSettled': {
      const e = event.data;
      return `leaderboard ${e.leaderboardUid} season ${e.season} settled: ${e.standings.map((s) => s.playerId).join(', ') || 'nobody ranked'}`;
    }
    case 'LeagueEntered':
      return `league ${event.data.leagueUid} period ${event.data.period.start} ${event.data.tier}: player ${event.data.playerId} entered`;
    case 'LeagueCohortSettled':
      return `league ${event.data.leagueUid} period ${event.data.period.start} ${event.data.tier} cohort ${event.data.cohort} settled: ${event.data.players.join(', ')}`;
    case 'BundlePurchased': {
      const e = event.data;
      return `bundle ${e.bundleUid} provision ${e.provisionUid} ${e.status}, cost ${e.cost.amount}${e.cost.deliverableUid ? ` ${e.cost.deliverableUid}` : ''}`;
    }
    case 'ProvisionFailed':
      return `provision ${event.data.provisionUid} ${event.data.reason}`;
    case 'ProvisionCompleted':
    case 'ProvisionRefunded':
      return `provision ${event.data.provisionUid}`;
    case 'ProvisionOpened': {
      const e = event.data;
      return `provision ${e.provisionUid} ${e.referenceType}${e.bundleUid ? ` bundle ${e.bundleUid}` : ''}${e.referenceId ? ` ref ${e.referenceId}` : ''} player ${e.playerId} ${e.status}`;
    }
    case 'ProvisionStatusChanged':
      return `provision ${event.data.provisionUid} ${event.data.status}${event.data.failureReason ? ` (${event.data.failureReason})` : ''}`;
    case 'ReferenceRecorded':
      return `ref ${event.data.referenceId} ${event.data.actionName} player ${event.data.playerId} at revision ${event.data.playerRevision}`;
    case 'ReferenceReversed':
      return `ref ${event.data.referenceId} reversed`;
    case 'PlayerRecomputed': {
      const e = event.data;
      return `recompute ${e.recomputeUid} under catalog version ${e.catalogVersion}: points ${e.changes.pointsBefore} -> ${e.changes.pointsAfter}, actions ${e.changes.actions.join(' ') || 'none'} decided again`;
    }
    case 'CatalogPublished': {
      const e = event.data;
      const by = e.source === 'api' ? `published by ${e.publishedBy ?? 'an API key'}` : 'from the file';
      const from =
        e.effectiveAt !== undefined && e.effectiveAt > e.publishedAt ? `, in force from ${iso(e.effectiveAt)}` : '';
      const until = e.until != null ? ` until ${iso(e.until)}` : '';
      const revert = e.revertOf !== undefined ? `, reverting to version ${e.revertOf}` : '';
      const comment = e.comment ? `: ${e.comment}` : '';
      return `version ${e.version} hash ${e.hash.slice(0, 12)} ${by}${from}${until}${revert}${comment}`;
    }
    case 'CatalogVersionInForce':
      return `version ${event.data.version} hash ${event.data.hash.slice(0, 12)} in force since ${iso(event.data.since)}`;
    case 'RecomputeStarted':
      return `recompute ${event.data.recomputeUid} under catalog version ${event.data.catalogVersion}${event.data.dryRun ? ' (dry run)' : ''}`;
    case 'RecomputeCompleted':
      return `recompute ${event.data.recomputeUid} completed${event.data.applied ? '' : ' (dry run)'}`;
    case 'RecomputeFailed':
      return `recompute ${event.data.recomputeUid} failed: ${event.data.message}`;
    case 'StoreFormatDeclared':
      return `format ${event.data.version}`;
    case 'IdempotentRequestStarted':
      return `key "${event.data.idempotencyKey}" of ${event.data.keyName}: started`;
    case 'IdempotentRequestRecorded': {
      const e = event.data;
      return `key "${e.idempotencyKey}" of ${e.keyName}: ${e.outcome.ok ? 'answered' : `refused ${e.outcome.code}`}`;
    }
    case 'ChestOpened': {
      const e = event.data;
      return `${e.chestDeliverableUid} opening ${e.openingUid}, prizes ${e.prizes.map((p) => `${p.amount} ${p.reward}`).join(' ') || 'none'}`;
    }
    case 'PowerupActivated':
    case 'PowerupDeactivated':
    case 'PowerupExpired':
      return `powerup ${event.data.powerupUid}`;
    case 'StreakAtRisk':
      return `streak ${event.data.streakUid} length ${event.data.length} at risk until ${iso(event.data.endsAt)}`;
    case 'MissionEnding':
      return `mission ${event.data.missionUid} ending ${iso(event.data.endsAt)}, ${event.data.stepsLeft} steps left`;
    case 'LeagueEnding':
      return `league ${event.data.leagueUid} ending ${iso(event.data.endsAt)}, rank ${event.data.rank} (${event.data.zone})`;
    case 'PlayerInactive':
      return `inactive ${event.data.days} days since ${iso(event.data.lastActionAt)}`;
    case 'ExperimentJoined':
      return `experiment ${event.data.experimentUid} variant ${event.data.variantUid}, joined by ${event.data.referenceId}`;
    case 'CurrencyExpired':
      return `expired ${event.data.lots.map((l) => `${l.amount} ${l.deliverableUid}`).join(' ')}`;
    case 'TriggerActivationTaken':
    case 'TriggerActivationReturned':
    case 'BundleStockTaken':
    case 'BundleStockReturned':
    case 'ChestStockTaken':
      return `${event.data.units} of ${event.data.resourceUid} held by ${event.data.holder}`;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
