/**
 * What the webhooks keep in the read store (MongoDB, or the embedded read models file), apart
 * from the projections' collections, which a rebuild drops and these are not:
 * - a cursor per webhook: every event of the log up to it was delivered, given up, or waits in
 *   a delivery document; and whether the webhook is paused, its receiver failing;
 * - delivery documents for the events that wait (a retry after a failure, or the events queued
 *   behind one in the same lane) and for those given up. They hold no body: each attempt builds
 *   it from the log, whose personal fields are encrypted, so erasing a player shreds what waits
 *   for them too (it is sent with `[erased]` in place of their personal data);
 * - a summary per webhook: totals and the latest outcomes, for operators.
 */
import type { RecordedEvent } from '../shared/adapters/event-store/port';
import type { Document } from '../shared/adapters/read-store/port';

export const WEBHOOK_COLLECTIONS = {
  cursors: 'webhook_cursors',
  deliveries: 'webhook_deliveries',
  summaries: 'webhook_summaries',
} as const;

export interface CursorDoc extends Document {
  /** The webhook's name. */
  _id: string;
  position: number;
  /** Raised by each redelivery, so that a run that read the cursor before it does not move it back past it. */
  epoch: number;
  /**
   * While its receiver fails: the pauses in a row (each twice as long as the one before, at most
   * an hour) and when the current one ends (Unix ms). Absent or 0: not paused.
   */
  pauses?: number;
  pausedUntil?: number;
}

export interface DeliveryDoc extends Document {
  /** `<webhook>|<event id>`. */
  _id: string;
  hook: string;
  /** Events of one lane are delivered in log order: a player's id, or the stream of an event of no player. */
  lane: string;
  position: number;
  eventId: string;
  type: string;
  /** `waiting`: to be sent (again); `failed`: its attempts used up, kept for the operator. */
  status: 'waiting' | 'failed';
  attempts: number;
  /** Unix ms: not sent before then. */
  nextAttemptAt: number;
  /** The receiver's answer to the last attempt (`HTTP 500`, `timeout after 5000 ms`), or null. */
  lastResult: string | null;
}

/** One delivery's outcome, as the summary lists it. */
export interface Outcome {
  eventId: string;
  type: string;
  position: number;
  outcome: 'delivered' | 'retrying' | 'failed';
  attempts: number;
  /** Unix ms of the attempt. */
  at: number;
  result: string;
}

export interface SummaryDoc extends Document {
  _id: string;
  delivered: number;
  failed: number;
  /** Newest first, at most RECENT_OUTCOMES. */
  recent: Outcome[];
}

export const RECENT_OUTCOMES = 50;

export const deliveryId = (hook: string, eventId: string): string => `${hook}|${eventId}`;

/** A player's events keep their order; other events keep the order of their stream. */
export function laneOf(event: RecordedEvent): string {
  const playerId = (event.data as { playerId?: unknown }).playerId;
  return typeof playerId === 'string' ? `player:${playerId}` : `stream:${event.streamName}`;
}

/**
 * The body sent for an event (Standard Webhooks: `type`, `timestamp`, `data`): the event's id,
 * type, player, stream, position and time, its data and its metadata (correlation id, key name).
 */
export function messageOf(event: RecordedEvent): string {
  const playerId = (event.data as { playerId?: unknown }).playerId;
  return JSON.stringify({
    type: event.type,
    timestamp: new Date(event.createdAt).toISOString(),
    data: {
      eventId: event.id,
      playerId: typeof playerId === 'string' ? playerId : null,
      stream: event.streamName,
      position: event.position,
      time: event.createdAt,
      data: event.data,
      metadata: event.metadata,
    },
  });
}
