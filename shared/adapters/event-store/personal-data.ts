import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PlayerKeys } from '../player-keys/port';
import type {
  AppendResult,
  EventStore,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
  WriteProblem,
} from './port';

/**
 * Marks a personal field written encrypted, with the version of its encoding: `pd1:` then the
 * base64 of IV (12 bytes), GCM tag (16 bytes) and ciphertext. AES-256-GCM under the player's key,
 * the player's id as additional data (a field copied to another player's event does not decrypt).
 */
const MARKER = 'pd1:';
/** Erasures a process remembers having completed; one forgotten costs one more (idempotent) key delete. */
const ERASURES_REMEMBERED = 10_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a personal field reads as once its player's key is deleted (the player erased). */
export const ERASED = '[erased]';

type Fields = (value: string) => string;
type Data = Record<string, unknown>;

/**
 * The event store as the rest of the service sees it: personal fields in plain text. Underneath,
 * they are encrypted before anything is appended (from the player's first event) and decrypted
 * when read, so the deciders and projections stay unaware of it. Personal fields: the username
 * and imageName of PlayerRegistered and PlayerUpdated, the values of an action's `details`
 * (ActionProcessed, and the re-decided actions of PlayerRecomputed), the reason of a support
 * adjustment (PlayerAdjusted: an operator's free text may name the person), and the username,
 * imageName and reason of an answer recorded for an Idempotency-Key (player/create and
 * player/update answer the player, players/adjust the adjustment). Everything else (amounts, ids, the client's referenceIds) is written as is.
 */
export class PersonalDataCodec implements EventStore {
  /** Players whose erasure this process has seen and completed (their key deleted), the latest ones. */
  private readonly erased = new Set<string>();

  constructor(
    private readonly store: EventStore,
    private readonly keys: PlayerKeys,
  ) {}

  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult> {
    const encrypted: StreamAppend[] = [];
    for (const append of appends) {
      const events: NewEvent[] = [];
      for (const event of append.events)
        // Most events carry no personal field: passed on as they are, without a turn of the event loop.
        events.push(
          PERSONAL_TYPES.has(event.type) ? { ...event, data: await this.encrypted(event.type, event.data) } : event,
        );
      encrypted.push({ ...append, events });
    }
    return this.store.appendToStreams(encrypted);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.decryptedAll(await this.store.readStream(stream, options));
  }

  streamRevision(stream: string): Promise<number> {
    return this.store.streamRevision(stream);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.decryptedAll(await this.store.readAll(options));
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.store.subscribeToAll({
      ...options,
      onEvent: async (event) =>
        options.onEvent(options.sealedDetails && DETAILS_ONLY.has(event.type) ? event : await this.decrypted(event)),
    });
  }

  writeProblem(): WriteProblem | null {
    return this.store.writeProblem();
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.keys.close();
  }

  private async encrypted(type: string, data: unknown): Promise<unknown> {
    const playerId = playerOf(type, data);
    // Most actions carry no details: nothing to encrypt, so no key to ask for.
    if (playerId === null || (DETAILS_ONLY.has(type) && !anyDetails(type, data as Data))) return data;
    const key = await this.keys.getOrCreate(playerId);
    return personalFields(type, data as Data, (value) => encrypt(value, key, playerId));
  }

  /**
   * Deletes the key of a player whose PlayerErased this process reads, once per process: it drops
   * the key from this process's cache (another process erased the player), and completes an
   * erasure whose key was not deleted (a crash right after the event was written: the restart's
   * projections read it before their checkpoint passes it).
   */
  private async completeErasure(playerId: string): Promise<void> {
    if (this.erased.has(playerId)) return;
    await this.keys.delete(playerId);
    this.erased.add(playerId);
    if (this.erased.size > ERASURES_REMEMBERED) this.erased.delete(this.erased.values().next().value!);
  }

  private async decryptedAll(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    const decrypted: RecordedEvent[] = [];
    for (const event of events)
      decrypted.push(
        PERSONAL_TYPES.has(event.type) || event.type === 'PlayerErased' ? await this.decrypted(event) : event,
      );
    return decrypted;
  }

  private async decrypted(event: RecordedEvent): Promise<RecordedEvent> {
    if (event.type === 'PlayerErased') await this.completeErasure((event.data as Data).playerId as string);
    const playerId = playerOf(event.type, event.data);
    // Most actions carry no details: nothing to decrypt, so no key to fetch and no copy to make.
    if (playerId === null || !anyEncrypted(event.type, event.data as Data)) return event;
    const key = await this.keys.get(playerId);
    return { ...event, data: personalFields(event.type, event.data as Data, (value) => decrypt(value, key, playerId)) };
  }
}

/** The player whose key the event's personal fields are under, or null when it has none. */
function playerOf(type: string, data: unknown): string | null {
  if (!PERSONAL_TYPES.has(type) || data === null || typeof data !== 'object') return null;
  const d = data as Data;
  if (type === 'IdempotentRequestRecorded') {
    const outcome = d.outcome as Data | undefined;
    const answer = outcome?.ok === true ? (outcome.answer as Data | null) : null;
    // Only answers that carry a personal field: any other (an erase's) needs no key.
    const personal =
      answer &&
      typeof answer === 'object' &&
      (typeof answer.username === 'string' ||
        typeof answer.imageName === 'string' ||
        typeof answer.reason === 'string');
    return personal && typeof answer.playerId === 'string' ? answer.playerId : null;
  }
  return typeof d.playerId === 'string' ? d.playerId : null;
}

/** The event types whose only personal fields are actions' details. */
const DETAILS_ONLY = new Set(['ActionProcessed', 'PlayerRecomputed']);

/** Whether an event of DETAILS_ONLY has any detail at all. */
function anyDetails(type: string, data: Data): boolean {
  const has = (d: Data) => Array.isArray(d.details) && d.details.length > 0;
  return type === 'ActionProcessed' ? has(data) : Array.isArray(data.actions) && data.actions.some(has);
}

const PERSONAL_TYPES = new Set([
  'PlayerRegistered',
  'PlayerUpdated',
  'ActionProcessed',
  'PlayerRecomputed',
  'PlayerAdjusted',
  'IdempotentRequestRecorded',
]);

/** The event's data with each personal field passed through `f`. */
function personalFields(type: string, data: Data, f: Fields): Data {
  switch (type) {
    case 'PlayerRegistered':
    case 'PlayerUpdated':
      return nameAndImage(data, f);
    case 'ActionProcessed':
      return withDetails(data, f);
    case 'PlayerRecomputed':
      return Array.isArray(data.actions)
        ? { ...data, actions: data.actions.map((a: Data) => withDetails(a, f)) }
        : data;
    case 'PlayerAdjusted':
      return { ...data, reason: f(String(data.reason)) };
    case 'IdempotentRequestRecorded': {
      const outcome = data.outcome as Data;
      return { ...data, outcome: { ...outcome, answer: nameAndImage(outcome.answer as Data, f) } };
    }
    default:
      return data;
  }
}

/** Whether some personal field of the event is written encrypted; the others read as they are. */
function anyEncrypted(type: string, data: Data): boolean {
  const sealed = (value: unknown) => typeof value === 'string' && value.startsWith(MARKER);
  const inDetails = (d: Data) => Array.isArray(d.details) && d.details.some((x: Data) => sealed(x.value));
  switch (type) {
    case 'PlayerRegistered':
    case 'PlayerUpdated':
      return sealed(data.username) || sealed(data.imageName);
    case 'ActionProcessed':
      return inDetails(data);
    case 'PlayerRecomputed':
      return Array.isArray(data.actions) && data.actions.some(inDetails);
    case 'PlayerAdjusted':
      return sealed(data.reason);
    case 'IdempotentRequestRecorded': {
      const answer = (data.outcome as Data).answer as Data;
      return sealed(answer.username) || sealed(answer.imageName) || sealed(answer.reason);
    }
    default:
      return false;
  }
}

function nameAndImage(data: Data, f: Fields): Data {
  const out = { ...data };
  if (typeof out.username === 'string') out.username = f(out.username);
  if (typeof out.imageName === 'string') out.imageName = f(out.imageName);
  // An adjustment's answer.
  if (typeof out.reason === 'string') out.reason = f(out.reason);
  return out;
}

function withDetails(data: Data, f: Fields): Data {
  if (!Array.isArray(data.details)) return data;
  return { ...data, details: data.details.map((d: Data) => ({ ...d, value: f(String(d.value)) })) };
}

/**
 * IVs drawn from the CSPRNG a thousand at a time: a call to it costs about as much as the
 * encryption itself, and each IV is still random and used once (an IV is not secret).
 */
const IV_POOL_BYTES = IV_BYTES * 1024;
let ivPool = Buffer.alloc(0);
let ivTaken = 0;

function nextIv(): Buffer {
  if (ivTaken === ivPool.length) {
    ivPool = randomBytes(IV_POOL_BYTES);
    ivTaken = 0;
  }
  return ivPool.subarray(ivTaken, (ivTaken += IV_BYTES));
}

export function encrypt(value: string, key: Buffer, playerId: string): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(playerId));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return MARKER + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The plain value; ERASED when the key is gone (or is not the one it was written under); a value without the marker as it is. */
export function decrypt(value: string, key: Buffer | null, playerId: string): string {
  if (!value.startsWith(MARKER)) return value;
  if (!key) return ERASED;
  const bytes = Buffer.from(value.slice(MARKER.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(playerId));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    // Written under a key since deleted (the player erased, and a key made again for a later event).
    return ERASED;
  }
}
