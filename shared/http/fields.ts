import { z } from 'zod';
import { UUID_PATTERN } from '../ids';
import { isValidTimeZone } from '../time/local-time';

/** Field limits (README, "Limits"). */
export const MAX_STRING = 1000;
export const MAX_DETAILS = 100;
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export const text = () => z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }).min(1, 'must not be empty').max(MAX_STRING, `must be at most ${MAX_STRING} characters`);

/** An IANA time zone name such as `Pacific/Auckland`; an unknown one is refused naming it. */
export const timeZone = () =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_STRING, `must be at most ${MAX_STRING} characters`)
    .refine(isValidTimeZone, { error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}` })
    .meta({ description: 'An IANA time zone name such as Pacific/Auckland', example: 'Pacific/Auckland' });

/** A decimal sent as a JSON number or a numeric string. */
export const decimal = () =>
  z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/).transform(Number)], { error: 'must be a number' }).pipe(z.number().finite('must be a finite number'));

export const details = () =>
  z
    .array(
      z.object({
        name: text(),
        value: z.union([z.string().max(MAX_STRING, `must be at most ${MAX_STRING} characters`), z.number().transform(String), z.boolean().transform(String)], { error: 'must be a string' }),
      }),
      { error: 'must be an array of {name, value}' },
    )
    .max(MAX_DETAILS, `at most ${MAX_DETAILS} items`);

/**
 * What the API document says of a player id: its pattern. Documentation only: a player id that is
 * not a UUID is refused as 1002 by the route, not as a field error.
 */
export const PLAYER_ID_DOC = { pattern: UUID_PATTERN, description: 'A UUID: dashed, or 32 hexadecimal characters; any case' } as const;
