/** Players by username: written by the players projector, read by the player search route. */
export const PLAYERS_COLLECTION = 'players';

/** One registered player; `name` is the username in lower case, what a search's prefix is matched on. */
export interface PlayerDoc extends Record<string, unknown> {
  _id: string;
  username: string;
  name: string;
}
