import { DEFAULT_CACHED_PLAYERS } from '../event-store/player-states';
import { readRunConfig } from './env';

describe('readRunConfig: PLAYER_CACHE_SIZE', () => {
  it('defaults to DEFAULT_CACHED_PLAYERS and takes a whole number above 0', () => {
    expect(readRunConfig({}).cachedPlayers).toBe(DEFAULT_CACHED_PLAYERS);
    expect(readRunConfig({ PLAYER_CACHE_SIZE: '500' }).cachedPlayers).toBe(500);
  });

  it.each(['0', '-1', '2.5', 'many'])('refuses %s, naming the setting', (value) => {
    expect(() => readRunConfig({ PLAYER_CACHE_SIZE: value })).toThrow(
      `PLAYER_CACHE_SIZE: must be a whole number above 0, got "${value}"`,
    );
  });
});
