import { z } from 'zod';
import { UUID_PATTERN } from '../../../domain/ids';
import { canonicalTimeZone, isValidTimeZone } from '../../../domain/time/local-time';
import { MAX_ATTRIBUTES } from '../../../domain/player/attributes';

/** Field limits (docs/api.md, "Limits"). */
export const MAX_STRING = 1000;
export const MAX_DETAILS = 100;
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export const text = () =>
  z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(MAX_STRING, `must be at most ${MAX_STRING} characters`);

/**
 * An IANA time zone name such as `Pacific/Auckland`, in any case, taken as its canonical name
 * (`europe/berlin` is `Europe/Berlin`): one zone is one name however a client spells it. An
 * unknown one is refused naming it.
 */
export const timeZone = () =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_STRING, `must be at most ${MAX_STRING} characters`)
    .refine(isValidTimeZone, { error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}` })
    .transform((name) => canonicalTimeZone(name)!)
    .meta({ description: 'An IANA time zone name such as Pacific/Auckland', example: 'Pacific/Auckland' });

/** Player attributes (docs/api.md, "Limits"). */
export const MAX_ATTRIBUTE_NAME = 64;
export const MAX_ATTRIBUTE_VALUE = 256;

/** A player's attributes as a command sends them: a string sets a key, null removes it. */
export const attributes = () =>
  z
    .record(
      z
        .string()
        .min(1, 'attribute names must not be empty')
        .max(MAX_ATTRIBUTE_NAME, `attribute names must be at most ${MAX_ATTRIBUTE_NAME} characters`),
      z
        .string({ error: 'attribute values must be strings or null' })
        .max(MAX_ATTRIBUTE_VALUE, `attribute values must be at most ${MAX_ATTRIBUTE_VALUE} characters`)
        .nullable(),
      { error: 'must be an object of attribute names to strings' },
    )
    .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} attributes`)
    .meta({
      description: `Up to ${MAX_ATTRIBUTES} attributes (names up to ${MAX_ATTRIBUTE_NAME} characters, values up to ${MAX_ATTRIBUTE_VALUE}); null removes one`,
      example: { country: 'DE', team: 'red' },
    });

/** A decimal sent as a JSON number or a numeric string. */
export const decimal = () =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?\d+(\.\d+)?$/)
          .transform(Number),
      ],
      { error: 'must be a number' },
    )
    .pipe(z.number().finite('must be a finite number'));

export const details = () =>
  z
    .array(
      z.object({
        name: text(),
        value: z.union(
          [
            z.string().max(MAX_STRING, `must be at most ${MAX_STRING} characters`),
            z.number().transform(String),
            z.boolean().transform(String),
          ],
          { error: 'must be a string' },
        ),
      }),
      { error: 'must be an array of {name, value}' },
    )
    .max(MAX_DETAILS, `at most ${MAX_DETAILS} items`);

/**
 * What the API document says of a player id: its pattern. Documentation only: a player id that is
 * not a UUID is refused as 1002 by the route, not as a field error.
 */
export const PLAYER_ID_DOC = {
  pattern: UUID_PATTERN,
  description: 'A UUID: dashed, or 32 hexadecimal characters; any case',
} as const;

/** The fields of a player that POST /v1/player/create and /v1/player/update both take (the time zone differs: update may clear it). */
export const PLAYER_FIELDS = {
  playerId: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .meta(PLAYER_ID_DOC),
  // A name is shown and searched: NUL, line breaks and other control characters have no place in it.
  username: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(MAX_STRING, `must be at most ${MAX_STRING} characters`)
    .refine((name) => !/\p{Cc}/u.test(name), 'must not contain control characters')
    .optional(),
  imageName: z
    .string({ error: 'must be a string' })
    .max(MAX_STRING, `must be at most ${MAX_STRING} characters`)
    .nullable()
    .optional(),
  attributes: attributes().optional(),
};
