import { PLAYERS_COLLECTION, type PlayerDoc } from '../shared/read-models/players';
import type { Projector } from './projector';

/** Each registered player by their current username, so that an operator can find a player by name; an erased one is gone. */
export const playersProjector: Projector = {
  name: 'players',
  collections: [PLAYERS_COLLECTION],
  indexes: [{ collection: PLAYERS_COLLECTION, keys: { name: 1 } }],
  handles: new Set(['PlayerRegistered', 'PlayerUpdated', 'PlayerErased']),
  async apply(event, store) {
    const players = store.collection<PlayerDoc>(PLAYERS_COLLECTION);
    if (event.type === 'PlayerErased') {
      await players.deleteMany({ _id: event.data.playerId });
      return;
    }
    if (event.type !== 'PlayerRegistered' && event.type !== 'PlayerUpdated') return;
    // An update carries the username after it, changed or not.
    const { playerId, username } = event.data;
    await players.replaceOne(
      { _id: playerId },
      { _id: playerId, username, name: username.toLowerCase() },
      { upsert: true },
    );
  },
};
