/** GET /v1/admin/players/{playerId}/export: all of a player's data as one document (GDPR access and portability). */
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import type { Catalog } from '../../domain/catalog/types';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { playerEventOf } from '../../domain/events';
import { DataInPieces, defineRoute } from '../../shared/adapters/http/route';
import {
  chestHistoryShape,
  missionShape,
  nullableString,
  ownedChestShape,
  powerupShape,
  profileShape,
  streakShape,
  transactionHistoryShape,
} from '../../shared/adapters/http/wire-shapes';
import { canonicalPlayerId } from '../../domain/ids';
import { PlayerFolding, type PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { playerStream } from '../../domain/streams';
import { chestRewards, ownedChests } from '../chests/routes';
import { playerProfile } from '../player-profile/route';
import { ownedPowerups } from '../powerups/route';
import { playerStreaks } from '../streaks/route';
import { playerMissions } from '../missions/route';
import { transactionItem } from '../transactions/history-route';
import type { StreamReadDeps } from '../deps';
import { ERRORS, refuse } from '../../domain/errors';

/** GET /v1/admin/players/{playerId}/export: everything held about one player, every list oldest first. */
const playerExportShape = z.object({
  playerId: z.string(),
  profile: z.object({
    username: z.string(),
    imageName: nullableString,
    timeZone: profileShape.shape.timeZone,
    registeredAt: z.number().int().describe('Unix ms'),
    attributes: profileShape.shape.attributes,
  }),
  points: profileShape.shape.points,
  level: profileShape.shape.level,
  badges: profileShape.shape.badges,
  balances: profileShape.shape.balances,
  transactions: z.array(transactionHistoryShape).describe("store purchases and actions' costs, in the order made"),
  chests: z.object({
    owned: z.array(ownedChestShape),
    rewards: z.array(chestHistoryShape).describe('one record per reward received from a chest, in the order opened'),
  }),
  powerups: z.array(powerupShape),
  streaks: z.array(streakShape),
  missions: z.array(missionShape),
  actions: z
    .array(
      z.object({
        referenceId: z.string(),
        name: z.string(),
        timestamp: z.number().int().describe('Unix ms, as the action carried it'),
        details: z.array(z.object({ name: z.string(), value: z.string() })),
        earnedPoints: z.number().describe("the action's points plus badge, trigger, rank and milestone points"),
        reversed: z.boolean().describe('taken back since (POST /v1/action/delete)'),
      }),
    )
    .describe('every processed action, in the order processed'),
  adjustments: z
    .array(
      z.object({
        adjustmentUid: z.string(),
        reason: z.string(),
        keyName: z.string().describe('the key that made it'),
        points: z.number(),
        deliverables: z.array(z.object({ uid: z.string(), label: z.string(), amount: z.number() })),
        adjustedAt: z.number().int().describe('Unix ms'),
      }),
    )
    .describe('every support adjustment (POST /v1/admin/players/adjust), in the order made'),
});

/** A processed action as its ActionProcessed recorded it; whether it was reversed is the state's. */
type PlayerAction = {
  referenceId: string;
  name: string;
  timestamp: number;
  details: { name: string; value: string }[];
  earnedPoints: number;
};

/** A support adjustment as its PlayerAdjusted recorded it. */
type PlayerAdjustment = z.infer<typeof playerExportShape>['adjustments'][number];

export type PlayerExport = ReturnType<typeof exportOf>;

/** The player's document; or, for an erased player, only when they were erased; or null for a player never registered. */
export type PlayerExportAnswer = { exported: PlayerExport } | { erasedAt: number } | null;

/** The document, from the player's folded state: the sections are those the player's own routes answer. */
function exportOf(
  catalog: Catalog,
  state: PlayerState,
  registeredAt: number,
  history: { actions: PlayerAction[]; adjustments: PlayerAdjustment[] },
  now: number,
) {
  const { points, level, badges, balances, timeZone, attributes } = playerProfile(catalog, state, now);
  return {
    playerId: state.playerId,
    profile: { username: state.username, imageName: state.imageName, timeZone, registeredAt, attributes },
    points,
    level,
    badges,
    balances,
    transactions: [...state.provisions.values()].map((p) => transactionItem(state.playerId, p)),
    chests: { owned: ownedChests(catalog, state), rewards: chestRewards([...state.chestOpenings.values()]) },
    powerups: ownedPowerups(catalog, state, now),
    streaks: playerStreaks(catalog, state, now),
    missions: playerMissions(catalog, state, now),
    adjustments: history.adjustments,
    // Last: the document is written in pieces, the actions (the bulk of a long history) at the end (exportPieces).
    actions: history.actions.map((a) => ({ ...a, reversed: state.reversed.has(a.referenceId) })),
  };
}

/** Events of the player's stream read at a time: the event loop serves other requests between pages. */
const EVENTS_PER_PAGE = 200;
/** Actions of the document written at a time (see DataInPieces). */
const ACTIONS_PER_PIECE = 500;

/**
 * Everything the player's stream holds about the player, oldest first; for an erased player only
 * when they were erased (their history is no longer theirs to hand out). The stream is read once, a page at a time, and folded with the players' own fold, so
 * the actions and the holdings are of the same moment.
 */
export async function playerExport(
  events: EventStore,
  catalog: Catalog,
  playerId: string,
  now: number,
): Promise<PlayerExportAnswer> {
  const folding = new PlayerFolding(playerId);
  let registeredAt: number | null = null;
  let erasedAt: number | null = null;
  const actions: PlayerAction[] = [];
  const adjustments: PlayerAdjustment[] = [];
  for (let fromRevision = 0; ; fromRevision += EVENTS_PER_PAGE) {
    const page = await events.readStream(playerStream(playerId), { fromRevision, maxCount: EVENTS_PER_PAGE });
    for (const recorded of page) {
      const event = playerEventOf(recorded);
      if (!event) continue;
      folding.add(event);
      if (event.type === 'PlayerRegistered') registeredAt = event.data.registeredAt;
      if (event.type === 'PlayerErased') erasedAt = event.data.erasedAt;
      if (event.type === 'ActionProcessed') {
        const a = event.data;
        actions.push({
          referenceId: a.referenceId,
          name: a.actionName,
          timestamp: a.timestamp,
          details: a.details,
          earnedPoints: a.result.earnedPoints,
        });
      }
      if (event.type === 'PlayerAdjusted') {
        const a = event.data;
        adjustments.push({
          adjustmentUid: a.adjustmentUid,
          reason: a.reason,
          keyName: a.keyName,
          points: a.points,
          deliverables: a.deliverables.map((g) => ({ uid: g.uid, label: g.label, amount: g.amount })),
          adjustedAt: a.adjustedAt,
        });
      }
    }
    if (page.length < EVENTS_PER_PAGE) break;
    await setImmediate();
  }
  if (erasedAt !== null) return { erasedAt };
  const { state } = folding;
  return state.registered && registeredAt !== null
    ? { exported: exportOf(catalog, state, registeredAt, { actions, adjustments }, now) }
    : null;
}

/**
 * The document's JSON in pieces: everything before the actions, then the actions a few hundred at
 * a time (the bulk of a long history), joined exactly as JSON.stringify of the whole would write it.
 */
export function* exportPieces(exported: PlayerExport): Generator<string> {
  const { actions, ...head } = exported;
  // `actions` is the document's last member: the head's JSON without its closing brace goes first.
  yield `${JSON.stringify(head).slice(0, -1)},"actions":[`;
  for (let i = 0; i < actions.length; i += ACTIONS_PER_PIECE)
    yield (i > 0 ? ',' : '') + JSON.stringify(actions.slice(i, i + ACTIONS_PER_PIECE)).slice(1, -1);
  yield ']}';
}

/** Server and Auditor keys: an operator answers a player's access request with it. */
export const playerExportRoute = (deps: Pick<StreamReadDeps, 'events' | 'catalog' | 'now'>) =>
  defineRoute({
    method: 'GET',
    path: '/v1/admin/players/:playerId/export',
    tiers: OPERATORS,
    doc: {
      operationId: 'exportPlayer',
      summary:
        "All of a player's data as one document: profile, holdings, transactions, chests, powerups, streaks, every processed action and every support adjustment, oldest first",
      response: playerExportShape,
      errors: { 1002: 'Invalid player: playerId must be a UUID', 5003: 'PlayerId does not exist' },
    },
    parse: ({ params }) => {
      const playerId = canonicalPlayerId(params.playerId);
      return playerId ? ok({ playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle({ playerId }) {
      const answer = await playerExport(deps.events, deps.catalog().catalog, playerId, deps.now());
      // An erased player answers as an unknown one, as on every route naming them.
      return answer && 'exported' in answer
        ? ok(new DataInPieces(exportPieces(answer.exported)))
        : refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
    },
  });
