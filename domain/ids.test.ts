import { canonicalPlayerId, newEventId, newUid, secureRandom } from './ids';

describe('secureRandom', () => {
  it('is uniform in [0, 1)', () => {
    const draws = Array.from({ length: 20_000 }, secureRandom);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    // The mean of 20,000 uniform draws has a standard deviation of about 0.002.
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01);
    const quarters = [0, 0, 0, 0];
    for (const x of draws) quarters[Math.floor(x * 4)]++;
    for (const q of quarters) expect(Math.abs(q - 5000)).toBeLessThan(300);
  });
});

describe('ids', () => {
  it('service uids are 32 lowercase hex characters', () => {
    expect(newUid()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('event ids are UUIDv7: the creation time in the first 48 bits, version 7, RFC variant, unique', () => {
    const before = Date.now();
    const ids = Array.from({ length: 1000 }, newEventId);
    const after = Date.now();
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const time = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('canonicalises player ids with or without dashes, any case; anything else is null', () => {
    expect(canonicalPlayerId('6F1E0C4A3D2B4F5E8A9B0C1D2E3F4A5B')).toBe('6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b');
    expect(canonicalPlayerId('6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b')).toBe('6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b');
    for (const bad of ['player-1', '', 42, null, '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5'])
      expect(canonicalPlayerId(bad)).toBeNull();
  });
});
