/**
 * Signing up, in and out, and getting back in: registration, the password, login codes, Google, email
 * verification and password reset (all public; their rate limits per client or per email).
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import { clearSessionCookie } from './cookies.js';
import { countLogins } from '../metrics.js';
import { correlationId } from './middleware.js';
import { parseEmailParam, parseTokenParam, schemas } from './validation.js';
import { userAnswer, userWithMessageAnswer } from './answers.js';
import {
  ALL_FIELDS_REQUIRED,
  EMAIL_REQUIRED,
  IDENTITY_RATE_LIMITED,
  INVALID_EMAIL,
  LOGIN_CODE_REQUIRED,
  SHORT_PASSWORD,
  mustBeString,
} from './refusals.js';
import { TAGS, json, message, route, routeTable, type RouteInput } from './routeTable.js';
import type { UsersContext } from './usersContext.js';

/**
 * A sign-in route's handler: `command` asks identity to sign this browser in (browser(req): its device token
 * and origin), and its answer signs it in (signedIn: the cookies, the user) with `status`.
 */
const signingIn =
  <B, P>(
    command: (c: UsersContext, input: RouteInput<B, P>, req: Request) => Promise<id.AuthResponse>,
    status = 200,
  ) =>
  async (c: UsersContext, input: RouteInput<B, P>, req: Request, res: Response) =>
    c.signedIn(req, res, await command(c, input, req), status);

export const SIGN_IN_ROUTES = routeTable<UsersContext>([
  route({
    method: 'post',
    path: '/api/users/register',
    tag: TAGS.account,
    summary: 'Register',
    description:
      'Creates the account, signs in (session cookie) and trusts this browser (device cookie). A verification email is sent.',
    access: 'public',
    body: schemas.register,
    rateLimit: 'register',
    status: 201,
    ok: json(userAnswer, 'Registered and signed in.'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        INVALID_EMAIL,
        SHORT_PASSWORD,
        'Invalid referral code',
        ...mustBeString('name', 'email', 'password', 'phone', 'country', 'referralCode'),
      ],
      409: ['Email is already registered'],
    },
    middleware: ({ limit }) => [limit('register')],
    handler: signingIn(
      ({ identity, browser }, { body, call }, req) =>
        call(identity, 'register', id.RegisterRequest.fromPartial({ ...body, ...browser(req) })),
      201,
    ),
  }), // login and loginWithCode: per client address only; identity counts failures per account and browser
  // (a per-email budget here would let anyone who knows an address lock its owner out)
  route({
    method: 'post',
    path: '/api/users/login',
    tag: TAGS.account,
    summary: 'Log in',
    description:
      "From a browser identity does not trust yet the answer is 400 'New browser or device detected': sign in with a login code (sendLoginCode, loginWithCode).",
    access: 'public',
    body: schemas.login,
    rateLimit: 'login',
    ok: json(userAnswer, 'Signed in (session cookie).'),
    errors: {
      400: [
        ALL_FIELDS_REQUIRED,
        INVALID_EMAIL,
        'Invalid email or password',
        'New browser or device detected',
        ...mustBeString('email', 'password'),
      ],
      403: ['Your account has been suspended. Please contact support'],
    },
    middleware: ({ limit }) => [countLogins.password, limit('login')],
    handler: signingIn(({ identity, browser }, { body, call }, req) =>
      call(identity, 'login', id.LoginRequest.fromPartial({ ...body, ...browser(req) })),
    ),
  }),
  route({
    method: 'get',
    path: '/api/users/logout',
    tag: TAGS.account,
    summary: 'Log out',
    description:
      'Revokes the session and clears its cookie; harmless when signed out. Refused when the request comes from another site (Sec-Fetch-Site: cross-site, or a foreign Origin or Referer).',
    access: 'public',
    ok: message('Logged out.'),
    errors: { 403: ['Cross-site request refused'] },
    consumesSession: true,
    handler: async ({ auth, identity, secure }, { call }, req, res) => {
      const s = await auth.optional(req, res);
      let message = 'Logout successful';
      if (s) {
        try {
          const out = await call(identity, 'logout', id.LogoutRequest.fromPartial({ caller: s.caller }));
          message = out.message || message;
        } catch {
          // The cookie goes either way; a session identity cannot find is already gone.
        }
      }
      clearSessionCookie(res, secure);
      res.json({ message });
    },
  }),
  {
    method: 'get',
    path: '/api/users/loginStatus',
    tag: TAGS.account,
    summary: 'Whether this browser is signed in',
    access: 'public',
    ok: json(z.boolean(), '`true` or `false`.'),
    handler:
      ({ auth }) =>
      async (req, res) => {
        const s = await auth.optional(req, res);
        res.json(s !== null);
      },
  },
  route({
    method: 'patch',
    path: '/api/users/verifyUser/:verificationToken',
    tag: TAGS.account,
    summary: 'Verify the email with the emailed token',
    access: 'public',
    ok: message('Verified.'),
    errors: { 400: ['Invalid or expired token', 'Invalid or expired verification link'] },
    params: (p) => ({ verificationToken: parseTokenParam(p.verificationToken, 'Invalid or expired token') }),
    handler: ({ identity }, { params, call }, req, _res) =>
      call(
        identity,
        'verifyUser',
        id.VerifyUserRequest.fromPartial({ ...params, correlationId: correlationId(req) }),
      ),
  }),
  route({
    method: 'patch',
    path: '/api/users/resetPassword/:resetToken',
    tag: TAGS.account,
    summary: 'Set a new password with the emailed reset token',
    description: "Answers 'Password Reset Successful, please login'; every session of the user is revoked.",
    access: 'public',
    body: schemas.resetPassword,
    rateLimit: 'resetPassword',
    ok: message('Reset.'),
    errors: {
      400: [
        SHORT_PASSWORD,
        ALL_FIELDS_REQUIRED,
        'Invalid or expired token',
        'Invalid or expired reset link',
        ...mustBeString('password'),
      ],
    },
    middleware: ({ limit }) => [limit('resetPassword')],
    params: (p) => ({ resetToken: parseTokenParam(p.resetToken, 'Invalid or expired token') }),
    handler: ({ identity }, { params, body, call }, req, _res) =>
      call(
        identity,
        'resetPassword',
        id.ResetPasswordRequest.fromPartial({ ...params, ...body, correlationId: correlationId(req) }),
      ),
  }),
  route({
    method: 'post',
    path: '/api/users/forgotPassword',
    tag: TAGS.account,
    summary: 'Email a password reset link',
    description: 'The same answer whether or not the email is registered.',
    access: 'public',
    body: schemas.forgotPassword,
    rateLimit: 'forgotPassword',
    ok: message('Sent when registered.'),
    errors: { 400: [EMAIL_REQUIRED, INVALID_EMAIL, ...mustBeString('email')] },
    middleware: ({ limit, bodyEmail }) => [limit('forgotPassword', bodyEmail)],
    handler: ({ identity, origin }, { body, call }, req, _res) =>
      call(identity, 'forgotPassword', id.ForgotPasswordRequest.fromPartial({ ...body, ...origin(req) })),
  }),
  route({
    method: 'post',
    path: '/api/users/sendLoginCode/:email',
    tag: TAGS.account,
    summary: 'Email a 6-digit login code',
    description: 'The same answer whether or not the email is registered.',
    access: 'public',
    rateLimit: 'sendLoginCode',
    ok: message('Sent when registered.'),
    errors: { 400: [INVALID_EMAIL, ALL_FIELDS_REQUIRED], 429: [IDENTITY_RATE_LIMITED] },
    middleware: ({ limit, paramEmail }) => [limit('sendLoginCode', paramEmail)],
    params: (p) => ({ email: parseEmailParam(p.email) }),
    handler: ({ identity, origin }, { params, call }, req, _res) =>
      call(identity, 'sendLoginCode', id.SendLoginCodeRequest.fromPartial({ ...params, ...origin(req) })),
  }),
  route({
    method: 'post',
    path: '/api/users/loginWithCode/:email',
    tag: TAGS.account,
    summary: 'Log in with the emailed code',
    description: 'Signs in and trusts this browser (device cookie).',
    access: 'public',
    body: schemas.loginWithCode,
    rateLimit: 'loginWithCode',
    ok: json(userWithMessageAnswer, 'Signed in.'),
    errors: {
      400: [
        LOGIN_CODE_REQUIRED,
        'Access code must be 6 characters',
        'Invalid or expired login code',
        INVALID_EMAIL,
        ...mustBeString('loginCode'),
      ],
      429: [IDENTITY_RATE_LIMITED],
    },
    middleware: ({ limit }) => [countLogins.code, limit('loginWithCode')],
    params: (p) => ({ email: parseEmailParam(p.email) }),
    handler: async ({ identity, browser, signedIn }, { params, body, call }, req, res) => {
      const out = await call(
        identity,
        'loginWithCode',
        id.LoginWithCodeRequest.fromPartial({ ...params, ...body, ...browser(req) }),
      );
      // Spec §4: login-with-code success "shows the server message".
      signedIn(req, res, out, 200, out.message ? { message: out.message } : {});
    },
  }),
  route({
    method: 'post',
    path: '/api/users/google/callback',
    tag: TAGS.account,
    summary: 'Sign in with a Google ID token',
    description: '`credential` (or `token`): the OpenID Connect ID token Google sign-in returned.',
    access: 'public',
    body: schemas.google,
    rateLimit: 'google',
    ok: json(userAnswer, 'Signed in.'),
    errors: {
      400: [ALL_FIELDS_REQUIRED, ...mustBeString('credential', 'token'), 'Google sign-in is not available'],
      401: ['Google sign-in failed: invalid credential'],
    },
    middleware: ({ limit }) => [countLogins.google, limit('google')],
    handler: signingIn(({ identity, browser }, { body, call }, req) =>
      call(identity, 'googleLogin', id.GoogleLoginRequest.fromPartial({ ...body, ...browser(req) })),
    ),
  }),
]);
