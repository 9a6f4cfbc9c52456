/** What a call fails with: the service's error envelope `{code, data}`, or why there was none. */
export class GamificationError extends Error {
  override readonly name = 'GamificationError';

  constructor(
    /** The service's error code (9001: action does not exist; docs/api.md), or 0 when no answer came (a network error). */
    readonly code: number,
    message: string,
    /** The HTTP status of the answer (a 5002 "already exists" comes with 200), or 0 when none came. */
    readonly status: number,
    /** The answer's X-Request-Id, to find its log lines. */
    readonly requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The error of an answer that is not a success: its envelope when it has one, else its status and the start of its text. */
export function errorOf(response: Response, body: unknown): GamificationError {
  const requestId = response.headers.get('X-Request-Id') ?? undefined;
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; data?: unknown };
  if (typeof envelope.code === 'number' && typeof envelope.data === 'string')
    return new GamificationError(envelope.code, envelope.data, response.status, requestId);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new GamificationError(
    response.status,
    `HTTP ${response.status}: ${text.slice(0, 200)}`,
    response.status,
    requestId,
  );
}

/** The same, reading the answer's body (JSON when it is). */
export async function errorOfResponse(response: Response): Promise<GamificationError> {
  const text = await response.text();
  try {
    return errorOf(response, JSON.parse(text));
  } catch {
    return errorOf(response, text);
  }
}
