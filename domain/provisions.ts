/**
 * A provision as its own stream records it: opened by a purchase (or an action's cost), then
 * each change of status. The transaction endpoints answer from it alone.
 */
import type { RecordedEvent } from './events/recorded';
import type { DeepReadonly } from './deep-readonly';
import { provisionEventOf } from './events';
import type { StreamFold } from './stream-fold';
import type { ProvisionOpened, ProvisionStatus } from './events/provision-events';

export interface ProvisionRecord {
  opened: ProvisionOpened;
  status: ProvisionStatus;
  failureReason: 'Cancelled' | 'TimedOut' | null;
  /** Unix ms of the last change. */
  updateDate: number;
}

/** A provision's record after one event of its stream (null: not opened yet). */
export function evolveProvision(record: ProvisionRecord | null, recorded: RecordedEvent): ProvisionRecord | null {
  const e = provisionEventOf(recorded);
  if (e?.type === 'ProvisionOpened')
    return { opened: e.data, status: e.data.status, failureReason: null, updateDate: e.data.createDate };
  if (e?.type === 'ProvisionStatusChanged' && record !== null)
    return {
      opened: record.opened,
      status: e.data.status,
      failureReason: e.data.failureReason,
      updateDate: e.data.updateDate,
    };
  return record;
}

/** A provision's stream: no record before its ProvisionOpened. */
export const PROVISION_FOLD: StreamFold<ProvisionRecord | null> = { initial: () => null, evolve: evolveProvision };

/** The record folded from a provision stream's events, or null when the stream has none. */
export const provisionRecordOf = (events: readonly RecordedEvent[]): ProvisionRecord | null =>
  events.reduce(evolveProvision, null);

/** The Transaction object the transaction endpoints answer with. */
export function transactionView(record: DeepReadonly<ProvisionRecord>) {
  const { opened } = record;
  return {
    playerId: opened.playerId,
    provisionUid: opened.provisionUid,
    cost: opened.cost.amount,
    costDeliverableUid: opened.cost.deliverableUid,
    referenceType: opened.referenceType,
    status: record.status,
    failureReason: record.failureReason,
    createDate: opened.createDate,
    updateDate: record.updateDate,
  };
}
export type Transaction = ReturnType<typeof transactionView>;
