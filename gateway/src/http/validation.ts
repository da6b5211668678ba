import { z } from 'zod';
import { HttpError } from './errors.js';
import {
  ALL_FIELDS_REQUIRED,
  EMAIL_REQUIRED,
  INVALID_BODY,
  INVALID_EMAIL,
  LOGIN_CODE_REQUIRED,
  ROLE_REQUIRED,
  SHORT_PASSWORD,
} from './refusals.js';
import { DEFAULT_AVATAR_PATH } from './userView.js';

/**
 * Body schemas (zod). Every field is a plain string where the spec sends text: an object such as
 * {"$gt": ""} is refused with 400 "<field> must be a string" and never reaches a service.
 * Messages follow the spec (§5): missing fields 'All fields are required', bad email
 * 'Please enter a valid email', short password 'Password must be up to 6 characters', ...
 */

// The email format of spec §5: a local part, then a domain with a dot and a TLD of 2+ letters, or a bracketed IP.
// Valid with the `u` flag too: the OpenAPI document carries it as a JSON Schema pattern.
export const EMAIL_RE =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

const TYPE_MARK = '\u0000type';
const MAX_TEXT = 2_000;

/** A string field; `missing` is the message when it is absent or blank. */
export const requiredString = (missing = ALL_FIELDS_REQUIRED, max = MAX_TEXT) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? missing : TYPE_MARK) })
    .trim()
    .min(1, missing)
    .max(max, `must be at most ${max} characters`);

/** An optional string field (absent, or a string; null counts as absent). */
export const optionalString = (max = MAX_TEXT) =>
  z.preprocess(
    (v) => (v === null ? undefined : v),
    z
      .string({ error: () => TYPE_MARK })
      .trim()
      .max(max, `must be at most ${max} characters`)
      .optional(),
  );

export const email = (missing = ALL_FIELDS_REQUIRED) =>
  requiredString(missing, 254)
    .regex(EMAIL_RE, INVALID_EMAIL)
    .transform((v) => v.toLowerCase());

export const newPassword = (missing = ALL_FIELDS_REQUIRED) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? missing : TYPE_MARK) })
    .min(1, missing)
    .min(6, SHORT_PASSWORD)
    .max(128, 'Password must be at most 128 characters');

export const anyPassword = (missing = ALL_FIELDS_REQUIRED) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? missing : TYPE_MARK) })
    .min(1, missing)
    .max(128, 'Password must be at most 128 characters');

export const ROLES = ['subscriber', 'author', 'admin', 'suspended'] as const;

/** Hosts whose https addresses a `photo` may name: the image service of spec §7 ("Update profile photo"). */
export const PHOTO_HOSTS: ReadonlySet<string> = new Set(['res.cloudinary.com']);
/** The longest inline photo: the SPA sends a JPEG of at most 256 × 256 px as a data URL (tens of kB). */
export const PHOTO_MAX_CHARS = 80_000;
export const PHOTO_REFUSED = `The photo must be a JPEG or PNG image uploaded from your profile (at most ${PHOTO_MAX_CHARS / 1000} kB), or an https address on ${[...PHOTO_HOSTS].join(', ')}`;
const INLINE_PHOTO = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * `photo` as an admin's browser will fetch it (users list, referrals): never an address of the sender's
 * choosing. Accepted: empty (no picture), our default avatar (stored as empty: it is what no picture shows),
 * an inline png / jpeg (spec §5) under PHOTO_MAX_CHARS, or https on PHOTO_HOSTS.
 */
const photo = () =>
  z
    .preprocess(
      (v) => (v === null ? undefined : v),
      z
        .string({ error: () => TYPE_MARK })
        .trim()
        .optional(),
    )
    .transform((v, ctx) => {
      if (v === undefined || v === '') return v;
      if (v.length <= PHOTO_MAX_CHARS && INLINE_PHOTO.test(v)) return v;
      let url: URL | undefined;
      try {
        url = new URL(v, 'https://relative.invalid');
      } catch {
        url = undefined;
      }
      if (url && url.pathname === DEFAULT_AVATAR_PATH && !url.search && !url.hash && !url.username) return '';
      if (
        v.length <= 2_048 &&
        url &&
        url.protocol === 'https:' &&
        PHOTO_HOSTS.has(url.hostname) &&
        !url.username
      )
        return v;
      ctx.addIssue({ code: 'custom', message: PHOTO_REFUSED });
      return z.NEVER;
    });

export const schemas = {
  register: z.object({
    name: requiredString(ALL_FIELDS_REQUIRED, 100),
    email: email(),
    password: newPassword(),
    phone: requiredString(ALL_FIELDS_REQUIRED, 40),
    country: requiredString(ALL_FIELDS_REQUIRED, 100),
    referralCode: optionalString(64),
  }),
  login: z.object({ email: email(), password: anyPassword() }),
  updateUser: z.object({
    name: optionalString(100).refine((v) => v === undefined || v.length > 0, 'Name cannot be empty'),
    phone: optionalString(40),
    bio: optionalString(1_000),
    country: optionalString(100),
    photo: photo(),
  }),
  changePassword: z.object({ oldPassword: anyPassword(), password: newPassword() }),
  resetPassword: z.object({ password: newPassword() }),
  forgotPassword: z.object({ email: email(EMAIL_REQUIRED) }),
  upgradeUser: z.object({
    role: requiredString(ROLE_REQUIRED, 20).refine(
      (r) => (ROLES as readonly string[]).includes(r),
      'Invalid role',
    ),
    id: requiredString(ALL_FIELDS_REQUIRED, 100),
  }),
  loginWithCode: z.object({
    loginCode: requiredString(LOGIN_CODE_REQUIRED, 100).refine(
      (c) => c.length === 6,
      'Access code must be 6 characters',
    ),
  }),
  google: z
    .object({ credential: optionalString(8_192), token: optionalString(8_192) })
    .transform((b) => ({ credential: b.credential || b.token || '' }))
    .refine((b) => b.credential.length > 0, ALL_FIELDS_REQUIRED),
  sendAutomatedEmail: z.object({
    subject: requiredString(ALL_FIELDS_REQUIRED, 200),
    send_to: email(),
    /** Optional and never refused: the email's Reply-To only when it is an address (notification decides). */
    reply_to: optionalString(320),
    template: requiredString(ALL_FIELDS_REQUIRED, 100),
    url: optionalString(2_048),
  }),
  /** PATCH kyc/reject/:id: the spec sends no body; an optional reason (shown to the user) is accepted. */
  kycReject: z.object({ reason: optionalString(500) }),
};

const REQUIRED_MESSAGES = new Set([ALL_FIELDS_REQUIRED, EMAIL_REQUIRED, ROLE_REQUIRED, LOGIN_CODE_REQUIRED]);

/** Parses a JSON body with a schema; the first issue (wrong type, then missing, then format) becomes a 400. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const input = body === undefined ? {} : body;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new HttpError(400, INVALID_BODY);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const rank = (m: string) => (m === TYPE_MARK ? 0 : REQUIRED_MESSAGES.has(m) ? 1 : 2);
  const issue = [...result.error.issues].sort((a, b) => rank(a.message) - rank(b.message))[0];
  const field = issue.path.map(String).join('.');
  if (issue.message === TYPE_MARK) throw new HttpError(400, `${field || 'value'} must be a string`);
  if (issue.message.startsWith('must be')) throw new HttpError(400, `${field} ${issue.message}`);
  throw new HttpError(400, issue.message);
}

/** Validates an email taken from a path segment. */
export function parseEmailParam(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new HttpError(400, ALL_FIELDS_REQUIRED);
  const v = value.trim();
  if (v.length > 254 || !EMAIL_RE.test(v)) throw new HttpError(400, INVALID_EMAIL);
  return v.toLowerCase();
}

/** Validates an opaque token or id taken from a path segment. */
export function parseTokenParam(value: unknown, missing = 'Invalid or expired token'): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > 512 ||
    !/^[A-Za-z0-9._~-]+$/.test(value)
  ) {
    throw new HttpError(400, missing);
  }
  return value;
}
