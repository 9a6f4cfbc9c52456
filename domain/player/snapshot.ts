/**
 * A player's state as plain JSON, for the PlayerRecomputed event that replaces it: Maps and Sets
 * become tagged entry lists, anything else is kept as it is. Knows no field of the state, so the
 * state's own module (state.ts: stateOfSnapshot) can read a snapshot back.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Maps and Sets told by their tag, not instanceof: a replayed player read back from a scratch file
 * (command-api/replay/replayed-players.ts) is built by v8.deserialize in the process's own realm,
 * which is not the one a test runs its code in.
 */
const isMap = (value: unknown): value is Map<unknown, unknown> =>
  Object.prototype.toString.call(value) === '[object Map]';
const isSet = (value: unknown): value is Set<unknown> => Object.prototype.toString.call(value) === '[object Set]';

const encode = (value: unknown): Json => {
  if (isMap(value)) return { $map: [...value].map(([k, v]) => [encode(k), encode(v)]) };
  if (isSet(value)) return { $set: [...value].map(encode) };
  if (Array.isArray(value)) return value.map(encode);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
  return value as Json;
};

const decode = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.$map)) return new Map((o.$map as [unknown, unknown][]).map(([k, v]) => [decode(k), decode(v)]));
    if (Array.isArray(o.$set)) return new Set((o.$set as unknown[]).map(decode));
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, decode(v)]));
  }
  return value;
};

export const snapshotOf = (state: object): unknown => encode(state);

/** The value a snapshot was made of (state.ts's stateOfSnapshot types it). */
export const valueOfSnapshot = (snapshot: unknown): unknown => decode(snapshot);
