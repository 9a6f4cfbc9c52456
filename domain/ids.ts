import { randomBytes, randomUUID } from 'node:crypto';

/** Service-generated uids: 32 lowercase hex characters. */
export const newUid = (): string => randomBytes(16).toString('hex');

/**
 * Event ids are UUIDv7 (RFC 9562): the first 48 bits are the Unix ms time, the rest random.
 * Ids made close in time sort close together, so the store's unique index on them grows at
 * its right edge instead of at random pages (half the cost of an append in the embedded store).
 */
export function newEventId(): string {
  const random = randomUUID();
  const time = Date.now().toString(16).padStart(12, '0');
  // randomUUID is v4: keep its random bits and variant, put the time in front and set version 7.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

/** Uniform in [0, 1) from the CSPRNG, with 48 bits of precision. */
export const secureRandom = (): number => randomBytes(6).readUIntBE(0, 6) / 2 ** 48;

/** A UUID as a player id may be sent: dashed or 32 hexadecimal characters, any case (the API document shows it too). */
export const UUID_PATTERN =
  '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$';
const UUID = new RegExp(UUID_PATTERN);

/** A player id in canonical form (lowercase, dashed), or null when it is not a UUID. */
export function canonicalPlayerId(value: unknown): string | null {
  if (typeof value !== 'string' || !UUID.test(value.trim())) return null;
  const hex = value.trim().replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
