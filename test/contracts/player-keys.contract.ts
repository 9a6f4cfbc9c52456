/**
 * What every PlayerKeys adapter must do, written once and run against each of them. Every test
 * uses its own player ids, so the suite can run against a shared server.
 */
import { randomUUID } from 'node:crypto';
import type { PlayerKeys } from '../../shared/adapters/player-keys/port';

export function playerKeysContract(
  name: string,
  open: () => Promise<PlayerKeys>,
  dispose: (keys: PlayerKeys) => Promise<void> = (keys) => keys.close(),
): void {
  describe(`PlayerKeys contract: ${name}`, () => {
    let keys: PlayerKeys;
    const newPlayer = () => `player-${randomUUID()}`;

    beforeEach(async () => {
      keys = await open();
    });

    afterEach(async () => {
      await dispose(keys);
    });

    it('makes a 32-byte key on first use and gives the same one afterwards', async () => {
      const player = newPlayer();
      expect(await keys.get(player)).toBeNull();
      const made = await keys.getOrCreate(player);
      expect(made).toHaveLength(32);
      expect(await keys.getOrCreate(player)).toEqual(made);
      expect(await keys.get(player)).toEqual(made);
    });

    it('gives each player a key of their own', async () => {
      const [one, two] = [newPlayer(), newPlayer()];
      expect(await keys.getOrCreate(one)).not.toEqual(await keys.getOrCreate(two));
    });

    it('makes the keys of many players asked for at once, each kept and each their own', async () => {
      const players = Array.from({ length: 200 }, newPlayer);
      const made = await Promise.all(players.map((p) => keys.getOrCreate(p)));
      expect(made.every((key) => key.length === 32)).toBe(true);
      expect(new Set(made.map((key) => key.toString('hex'))).size).toBe(players.length);
      expect(await Promise.all(players.map((p) => keys.getOrCreate(p)))).toEqual(made);
      expect(await Promise.all(players.map((p) => keys.get(p)))).toEqual(made);
      const other = await open();
      try {
        expect(await Promise.all(players.map((p) => other.get(p)))).toEqual(made);
      } finally {
        await other.close();
      }
    });

    it('gives one key to calls for the same player at once', async () => {
      const player = newPlayer();
      const made = await Promise.all(Array.from({ length: 5 }, () => keys.getOrCreate(player)));
      expect(made.every((key) => key.equals(made[0]))).toBe(true);
      expect(await keys.get(player)).toEqual(made[0]);
    });

    it('keeps a key for another connection to the same store', async () => {
      const player = newPlayer();
      const made = await keys.getOrCreate(player);
      const other = await open();
      try {
        expect(await other.get(player)).toEqual(made);
      } finally {
        await other.close();
      }
    });

    it('deletes a key for good: it reads as none, and a delete again is no error', async () => {
      const [erased, kept] = [newPlayer(), newPlayer()];
      await keys.getOrCreate(erased);
      const keptKey = await keys.getOrCreate(kept);
      await keys.delete(erased);
      expect(await keys.get(erased)).toBeNull();
      await keys.delete(erased);
      expect(await keys.get(kept)).toEqual(keptKey);
    });

    it('agrees on one key when two connections make it at once', async () => {
      const player = newPlayer();
      const other = await open();
      try {
        const [a, b] = await Promise.all([keys.getOrCreate(player), other.getOrCreate(player)]);
        expect(a).toEqual(b);
      } finally {
        await other.close();
      }
    });
  });
}
