import { z } from 'zod';
import { HttpError } from './errors.js';

/**
 * Body schemas (zod). Every field is a plain string where the spec sends text: an object such as
 * {"$gt": ""} is refused with 400 "<field> must be a string" and never reaches a service.
 * Messages follow the spec (§5): missing fields 'All fields are required', bad email
 * 'Please enter a valid email', short password 'Password must be up to 6 characters', ...
 */

export const ALL_FIELDS_REQUIRED = 'All fields are required';
export const INVALID_EMAIL = 'Please enter a valid email';
export const SHORT_PASSWORD = 'Password must be up to 6 characters';
export const INVALID_BODY = 'Invalid request body';

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
    photo: optionalString(2_048),
  }),
  changePassword: z.object({ oldPassword: anyPassword(), password: newPassword() }),
  resetPassword: z.object({ password: newPassword() }),
  forgotPassword: z.object({ email: email('Please enter an email') }),
  upgradeUser: z.object({
    role: requiredString('Please select a role', 20).refine(
      (r) => (ROLES as readonly string[]).includes(r),
      'Invalid role',
    ),
    id: requiredString(ALL_FIELDS_REQUIRED, 100),
  }),
  loginWithCode: z.object({
    loginCode: requiredString('Please fill in the login code', 100).refine(
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
    reply_to: email(),
    template: requiredString(ALL_FIELDS_REQUIRED, 100),
    url: optionalString(2_048),
  }),
  /** PATCH kyc/reject/:id: the spec sends no body; an optional reason (shown to the user) is accepted. */
  kycReject: z.object({ reason: optionalString(500) }),
};

const REQUIRED_MESSAGES = new Set([
  ALL_FIELDS_REQUIRED,
  'Please enter an email',
  'Please select a role',
  'Please fill in the login code',
]);

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
