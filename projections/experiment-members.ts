import type { EventType } from '../domain/events';
import {
  afterAction,
  afterPurchase,
  EXPERIMENT_MEMBERS_COLLECTION,
  type ExperimentMemberDoc,
  joined,
  memberId,
} from '../shared/read-models/experiments';
import type { Projector } from './projector';

/**
 * What experiments' results count of each player who joined one (shared/read-models/experiments.ts).
 * An action or reversal that names no experiment is passed over without a read: only the players
 * of an experiment cost the projector anything, and a store purchase one lookup by player.
 */
export const experimentMembersProjector: Projector = {
  name: 'experiment-members',
  collections: [EXPERIMENT_MEMBERS_COLLECTION],
  // A player's documents, which a store purchase updates: not a scan of every member.
  indexes: [
    { collection: EXPERIMENT_MEMBERS_COLLECTION, keys: { playerId: 1 } },
    { collection: EXPERIMENT_MEMBERS_COLLECTION, keys: { experiment: 1, variant: 1 } },
  ],
  handles: new Set<EventType>([
    'ExperimentJoined',
    'ActionProcessed',
    'ActionReversed',
    'BundlePurchased',
    'ProvisionRefunded',
    'ProvisionFailed',
  ]),
  async apply(event, store) {
    const members = store.collection<ExperimentMemberDoc>(EXPERIMENT_MEMBERS_COLLECTION);
    const { position } = event;
    const update = async (id: string, change: (doc: ExperimentMemberDoc) => ExperimentMemberDoc) => {
      const doc = await members.findOne({ _id: id });
      if (doc && position > doc.position) await members.replaceOne({ _id: id }, change(doc));
    };
    switch (event.type) {
      case 'ExperimentJoined': {
        const doc = joined(event.data, position);
        if (!(await members.findOne({ _id: doc._id })))
          await members.replaceOne({ _id: doc._id }, doc, { upsert: true });
        return;
      }
      case 'ActionProcessed':
      case 'ActionReversed': {
        const e = event.data;
        if (!e.experiments) return;
        const sign = event.type === 'ActionProcessed' ? 1 : -1;
        const points = event.type === 'ActionProcessed' ? e.effects.points : -e.effects.points;
        const costOf = event.type === 'ActionProcessed' ? event.data.cost : event.data.refund;
        const action = { timestamp: e.timestamp, points, cost: costOf?.amount ?? 0 };
        for (const x of e.experiments)
          await update(memberId(x.uid, e.playerId), (doc) => afterAction(doc, position, action, sign));
        return;
      }
      case 'BundlePurchased': {
        const e = event.data;
        for (const doc of await members.find({ playerId: e.playerId }))
          if (doc.joinedAt <= e.purchasedAt)
            await update(doc._id, (d) => afterPurchase(d, position, e.provisionUid, e.cost.amount));
        return;
      }
      case 'ProvisionRefunded':
      case 'ProvisionFailed': {
        const e = event.data;
        for (const doc of await members.find({ playerId: e.playerId }))
          if (e.provisionUid in doc.purchases)
            await update(doc._id, (d) => afterPurchase(d, position, e.provisionUid, null));
        return;
      }
    }
  },
};
