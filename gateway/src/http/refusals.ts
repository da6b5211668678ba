/**
 * The messages of the gateway's own refusals (`{ message }` answers), in one place: the code that refuses,
 * the route table's documented errors (routeTable.ts → openapi.ts) and the tests import them from here.
 * Messages the services send are theirs; those a route documents are written where the route is declared.
 */
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';

// ---------------------------------------------------------------- every route
export const NOT_LOGGED_IN = 'Not authorized, please login';
export const NOT_ADMIN = 'Not authorized as an admin';
/** A money command while an admin impersonates a user (maker-checker). */
export const IMPERSONATING_MONEY = MAKER_CHECKER_MESSAGES.impersonating;
export const INVALID_CSRF = 'Invalid CSRF token';
export const CROSS_SITE_REFUSED = 'Cross-site request refused';
export const TOO_MANY_REQUESTS = 'Too many requests, please try again later.';
export const SOMETHING_WENT_WRONG = 'Something went wrong';
export const SERVICE_UNAVAILABLE = 'Service temporarily unavailable, please try again later.';
export const MALFORMED_JSON = 'Malformed JSON body';
export const BODY_TOO_LARGE = 'Request body too large';

// ---------------------------------------------------------------- request bodies (validation.ts)
export const ALL_FIELDS_REQUIRED = 'All fields are required';
export const INVALID_EMAIL = 'Please enter a valid email';
export const SHORT_PASSWORD = 'Password must be up to 6 characters';
export const INVALID_BODY = 'Invalid request body';
export const EMAIL_REQUIRED = 'Please enter an email';
export const ROLE_REQUIRED = 'Please select a role';
export const LOGIN_CODE_REQUIRED = 'Please fill in the login code';
export const INVALID_USER_ID = 'Invalid user id';
/** `<field> must be a string`, for each field. */
export const mustBeString = (...fields: string[]) => fields.map((f) => `${f} must be a string`);

// ---------------------------------------------------------------- identity
/** identity's own budget (verification emails): its message, documented here. */
export const IDENTITY_RATE_LIMITED = 'Too many attempts. Please try again later';

// ---------------------------------------------------------------- KYC (kycRoutes.ts)
/** The upload's refusals of the gateway's own (the kyc service answers the others). */
export const KYC_UPLOAD_MESSAGES = {
  /** The spec's text for an upload without both files, which a body of another type cannot hold. */
  bothSides: 'Please upload both front and back documents.',
  tooLarge: 'File size must be less than 10MB.',
  impersonating: MAKER_CHECKER_MESSAGES.kycUploadImpersonating,
} as const;

// ---------------------------------------------------------------- statements (statementRoutes.ts)
export const STATEMENT_MESSAGES = {
  from: 'from must be a date (YYYY-MM-DD) or an ISO-8601 date and time',
  to: 'to must be a date (YYYY-MM-DD) or an ISO-8601 date and time',
  order: 'from must not be after to',
  tooLong: 'A statement covers at most 366 days',
  format: 'format must be pdf, json or csv',
  userId: INVALID_USER_ID,
} as const;

// ---------------------------------------------------------------- admin reads
export const INVALID_AUDIT_QUERY = 'Invalid audit filters';
