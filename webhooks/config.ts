/**
 * The webhooks an operator configures (a YAML or JSON file named by WEBHOOKS_FILE): where to
 * send which events, and the secret that signs them (docs/feed-and-webhooks.md, "Webhooks").
 */
import YAML from 'yaml';
import { z } from 'zod';
import { formatPath } from '../domain/catalog/problems';
import { EVENT_SCHEMAS } from '../domain/events';

export interface Webhook {
  name: string;
  url: string;
  /** `whsec_` and the base64 of the key, as Standard Webhooks writes secrets. */
  secret: string;
  /** The event types sent to it. */
  events: ReadonlySet<string>;
}

const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as [string, ...string[]];
/** Standard Webhooks secrets: at least 24 random bytes. */
const MIN_SECRET_BYTES = 24;

const hookEntry = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
  url: z.string().superRefine((url, ctx) => {
    const problem = urlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  secret: z.string().superRefine((secret, ctx) => {
    const problem = secretProblem(secret);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  events: z
    .array(z.enum(EVENT_TYPES, { error: (issue) => `${String(issue.input)} is not an event type` }))
    .min(1, 'must name at least one event type'),
});

function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  return /^https?:$/.test(parsed.protocol) ? null : 'must be an http or https URL';
}

function secretProblem(secret: string): string | null {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret))
    return 'must be whsec_ followed by base64 (e.g. whsec_ and 32 random bytes in base64)';
  return Buffer.from(secret.slice('whsec_'.length), 'base64').length >= MIN_SECRET_BYTES
    ? null
    : `must hold at least ${MIN_SECRET_BYTES} bytes`;
}

const webhooksFile = z.object({ webhooks: z.array(hookEntry) });

/** The file's webhooks, or one line per problem naming its place in the file. */
export function parseWebhooksFile(
  text: string,
  fileName: string,
): { ok: true; hooks: Webhook[] } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = fileName.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [`not valid ${fileName.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`],
    };
  }
  const parsed = webhooksFile.safeParse(raw);
  if (!parsed.success)
    return { ok: false, problems: parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`) };
  const seen = new Set<string>();
  const problems: string[] = [];
  parsed.data.webhooks.forEach((h, i) => {
    if (seen.has(h.name)) problems.push(`webhooks[${i}].name: duplicate name "${h.name}"`);
    seen.add(h.name);
  });
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    hooks: parsed.data.webhooks.map((h) => ({ name: h.name, url: h.url, secret: h.secret, events: new Set(h.events) })),
  };
}
