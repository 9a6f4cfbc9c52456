/**
 * The API as the console calls it: the key goes in the AuthKey header, from this tab's
 * sessionStorage (gone when the tab closes), never in a URL.
 */
const KEY = 'gamification-console-key';

const TIER = 'gamification-console-tier';

export const session = {
  key: () => sessionStorage.getItem(KEY),
  /** The key's tier, as the service answered at sign-in: it decides which pages the console offers. */
  tier: () => sessionStorage.getItem(TIER),
  begin: (key, tier) => {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(TIER, tier);
  },
  end: () => {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(TIER);
  },
};

/** A failure the API answered: its HTTP status, envelope code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let keyRefused = () => {};

/** Tells `listener` when the service stops accepting the session's key (e.g. it was revoked). */
export function onKeyRefused(listener) {
  keyRefused = listener;
}

async function call(method, path, { query, body, key = session.key(), idempotencyKey, text = false } = {}) {
  const search = new URLSearchParams(
    Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ).toString();
  const headers = { AuthKey: key ?? '' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let res;
  try {
    res = await fetch(search ? `${path}?${search}` : path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 0, 'The service did not answer: check the connection and try again.');
  }
  if (text && res.ok) return res.text();
  const envelope = await res.json().catch(() => null);
  if (res.ok && envelope?.code === 200) return envelope.data;
  const error = new ApiError(
    res.status,
    envelope?.code ?? res.status,
    typeof envelope?.data === 'string' ? envelope.data : `HTTP ${res.status}`,
  );
  if (res.status === 401 && key === session.key()) keyRefused(error);
  throw error;
}

export const get = (path, query) => call('GET', path, { query });
/** A read answered as text, not in the JSON envelope (the catalog as its YAML file); a failure is still an ApiError. */
export const getText = (path, query) => call('GET', path, { query, text: true });
/** A write; with an Idempotency-Key, a retry of the same click is answered without being done twice. */
export const post = (path, body, { idempotencyKey } = {}) => call('POST', path, { body, idempotencyKey });

/**
 * Resolves to the key's tier when the service accepts `key` for the console; a Client key (refused
 * by the service without its tenant domain) is refused here too.
 */
export async function checkKey(key) {
  const { tier } = await call('GET', '/v1/auth/key', { key });
  if (tier === 'Client') throw new ApiError(403, 4003, 'Client keys cannot use the console.');
  return tier;
}
