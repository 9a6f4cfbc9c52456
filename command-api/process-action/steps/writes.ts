/**
 * The last step of a decision: the events it writes, in one append, and the jobs it schedules.
 * The player's stream gets the registration, the experiments the action joins and its
 * ActionProcessed; beside them the referenceId's record, one activation of each limited trigger
 * awarded, the cost's provision and the leagues' entries.
 */
import type { Catalog } from '../../../domain/catalog/schema';
import { noEffects } from '../../../domain/events/common';
import type { PlayerEvent } from '../../../domain/events';
import type { ActionProcessed, PlayerRegistered } from '../../../domain/events/player-events';
import type { PlayerView } from '../../../domain/player/state';
import type { ExperimentJoin } from '../../../domain/rules/experiments';
import { momentJobsAfterAction } from '../../../domain/rules/moments';
import {
  playerStream,
  provisionStream,
  referenceStream,
  stockStream,
  TRIGGER_ACTIVATIONS,
} from '../../../domain/streams';
import { currencyExpiryJobs } from '../../currency-expiry/decider';
import type { ScheduledJob, StreamWrite } from '../../decision';
import type { LeagueStep } from '../../league-entry/decider';
import type { ProcessActionCommand } from './command';

/** The player's events, in order: the registration, the experiments the action joins, then its decision. */
export function playerEventsOf(
  cmd: Pick<ProcessActionCommand, 'playerId' | 'referenceId' | 'timestamp'>,
  registered: PlayerRegistered | null,
  joins: readonly ExperimentJoin[],
  timeZone: string,
  processed: ActionProcessed,
): PlayerEvent[] {
  const events: PlayerEvent[] = [];
  if (registered) events.push({ type: 'PlayerRegistered', data: registered });
  for (const join of joins)
    events.push({
      type: 'ExperimentJoined',
      data: {
        playerId: cmd.playerId,
        ...join,
        referenceId: cmd.referenceId,
        joinedAt: cmd.timestamp,
        timeZone,
        effects: noEffects(),
      },
    });
  events.push({ type: 'ActionProcessed', data: processed });
  return events;
}

/** The streams the decision writes: the player's, the reference (naming the revision the decision lands at), activations, provision, leagues. */
export function writesOf(
  processed: ActionProcessed,
  playerEvents: PlayerEvent[],
  playerRevision: number,
  leagues: LeagueStep | null,
): StreamWrite[] {
  const { playerId, referenceId, cost } = processed;
  const writes: StreamWrite[] = [
    { stream: playerStream(playerId), events: playerEvents },
    {
      stream: referenceStream(referenceId),
      events: [
        {
          type: 'ReferenceRecorded',
          data: {
            referenceId,
            playerId,
            actionName: processed.actionName,
            playerRevision: playerRevision + playerEvents.length,
          },
        },
      ],
    },
  ];
  for (const a of processed.awards)
    if (a.limited)
      writes.push({
        stream: stockStream(TRIGGER_ACTIVATIONS, a.uid),
        events: [
          {
            type: TRIGGER_ACTIVATIONS.taken,
            data: { resourceUid: a.uid, holder: referenceId, playerId, units: 1 },
          },
        ],
      });
  if (cost) {
    const { provisionUid, ...charged } = cost;
    const opened = {
      provisionUid,
      playerId,
      referenceType: 'Action' as const,
      bundleUid: null,
      referenceId,
      cost: charged,
      status: 'Completed' as const,
      createDate: processed.timestamp,
    };
    writes.push({
      stream: provisionStream(provisionUid),
      events: [{ type: 'ProvisionOpened', data: opened }],
      expectedRevision: 'no_stream',
    });
  }
  if (leagues) writes.push(...leagues.writes);
  return writes;
}

/** The jobs: the expiry of every lot granted (at registration too), the moments the action may make due, the leagues' settlements. */
export function jobsOf(
  catalog: Catalog,
  player: PlayerView,
  registered: PlayerRegistered | null,
  processed: ActionProcessed,
  timeZone: string,
  now: number,
  leagues: LeagueStep | null,
  /** The settlements of the seasons the action counts in, on boards with prizes (null: none looked for). */
  seasons: ScheduledJob[] | null,
): ScheduledJob[] {
  const effects = processed.effects;
  const jobs = currencyExpiryJobs(
    processed.playerId,
    registered?.effects.lots ? registered.effects.lots.concat(effects.lots ?? []) : effects.lots,
  ).concat(momentJobsAfterAction(catalog, player, processed, timeZone, now));
  if (leagues?.jobs.length) jobs.push(...leagues.jobs);
  if (seasons?.length) jobs.push(...seasons);
  return jobs;
}
