import v8 from 'node:v8';
import { DEFAULT_CACHED_PLAYERS } from '../event-store/player-states';
import { DEFAULT_REPLAY_PLAYERS_IN_MEMORY, readRunConfig } from './env';

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

describe('readRunConfig: REPLAY_PLAYERS_IN_MEMORY', () => {
  it('defaults to DEFAULT_REPLAY_PLAYERS_IN_MEMORY and takes a whole number above 0', () => {
    expect(readRunConfig({}).replayPlayersInMemory).toBe(DEFAULT_REPLAY_PLAYERS_IN_MEMORY);
    expect(readRunConfig({ REPLAY_PLAYERS_IN_MEMORY: '100' }).replayPlayersInMemory).toBe(100);
    expect(() => readRunConfig({ REPLAY_PLAYERS_IN_MEMORY: '0' })).toThrow(
      'REPLAY_PLAYERS_IN_MEMORY: must be a whole number above 0, got "0"',
    );
  });
});

describe('readRunConfig: SIMULATE_MAX_HEAP_MB', () => {
  it("defaults to half of node's heap limit and takes a whole number of MiB above 0", () => {
    const limit = v8.getHeapStatistics().heap_size_limit;
    expect(readRunConfig({}).simulateMaxHeapBytes).toBe(Math.floor(limit / 2 ** 20 / 2) * 2 ** 20);
    expect(readRunConfig({ SIMULATE_MAX_HEAP_MB: '300' }).simulateMaxHeapBytes).toBe(300 * 2 ** 20);
    expect(() => readRunConfig({ SIMULATE_MAX_HEAP_MB: '0' })).toThrow(
      'SIMULATE_MAX_HEAP_MB: must be a whole number above 0, got "0"',
    );
  });
});

describe('readRunConfig: MONGO_KEYS_DATABASE', () => {
  it("defaults to the read models' database name with _keys, and takes any other name", () => {
    expect(readRunConfig({}).mongoKeysDatabase).toBe('gamification_keys');
    expect(readRunConfig({ MONGO_DATABASE: 'games' }).mongoKeysDatabase).toBe('games_keys');
    expect(readRunConfig({ MONGO_KEYS_DATABASE: 'vault' }).mongoKeysDatabase).toBe('vault');
  });

  it("refuses the read models' database: one backup would hold the keys with the plaintext names", () => {
    expect(() => readRunConfig({ MONGO_DATABASE: 'games', MONGO_KEYS_DATABASE: 'games' })).toThrow(
      `MONGO_KEYS_DATABASE: must not be the read models' database (MONGO_DATABASE, "games"): the keys are backed up apart from the plaintext read models`,
    );
  });
});
