import { randomBytes, randomUUID } from 'node:crypto';

/** Service-generated uids: 32 lowercase hex characters (decisions.md §4). */
export const newUid = (): string => randomBytes(16).toString('hex');

export const newEventId = (): string => randomUUID();

/** Uniform in [0, 1) from the CSPRNG, with 48 bits of precision. */
export const secureRandom = (): number => randomBytes(6).readUIntBE(0, 6) / 2 ** 48;

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

/** A player id in canonical form (lowercase, dashed), or null when it is not a UUID. */
export function canonicalPlayerId(value: unknown): string | null {
  if (typeof value !== 'string' || !UUID.test(value.trim())) return null;
  const hex = value.trim().replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
