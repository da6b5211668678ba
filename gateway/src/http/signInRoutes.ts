/**
 * Signing up, in and out, and getting back in: registration, the password, login codes, Google, email
 * verification and password reset (all public; their rate limits per client or per email).
 */
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import { callUnary } from '../grpcClients.js';
import { clearSessionCookie } from './cookies.js';
import { countLogins } from '../metrics.js';
import { correlationId } from './middleware.js';
import { parseBody, parseEmailParam, parseTokenParam, schemas } from './validation.js';
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
import { TAGS, json, message, routeTable } from './routeTable.js';
import type { UsersContext } from './usersContext.js';

export const SIGN_IN_ROUTES = routeTable<UsersContext>([
  {
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
    handler:
      ({ identity, ctx, browser, signedIn }) =>
      async (req, res) => {
        const b = parseBody(schemas.register, req.body);
        const out = await callUnary(
          identity,
          'register',
          id.RegisterRequest.fromPartial({
            name: b.name,
            email: b.email,
            password: b.password,
            phone: b.phone,
            country: b.country,
            referralCode: b.referralCode ?? '',
            ...browser(req),
          }),
          ctx(req),
        );
        signedIn(req, res, out, 201);
      },
  }, // login and loginWithCode: per client address only; identity counts failures per account and browser
  // (a per-email budget here would let anyone who knows an address lock its owner out)
  {
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
    handler:
      ({ identity, ctx, browser, signedIn }) =>
      async (req, res) => {
        const b = parseBody(schemas.login, req.body);
        const out = await callUnary(
          identity,
          'login',
          id.LoginRequest.fromPartial({
            email: b.email,
            password: b.password,
            ...browser(req),
          }),
          ctx(req),
        );
        signedIn(req, res, out);
      },
  },
  {
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
    handler:
      ({ auth, identity, secure, ctx }) =>
      async (req, res) => {
        const s = await auth.optional(req, res);
        let message = 'Logout successful';
        if (s) {
          try {
            const out = await callUnary(
              identity,
              'logout',
              id.LogoutRequest.fromPartial({ caller: s.caller }),
              ctx(req),
            );
            message = out.message || message;
          } catch {
            // The cookie goes either way; a session identity cannot find is already gone.
          }
        }
        clearSessionCookie(res, secure);
        res.json({ message });
      },
  },
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
  {
    method: 'patch',
    path: '/api/users/verifyUser/:verificationToken',
    tag: TAGS.account,
    summary: 'Verify the email with the emailed token',
    access: 'public',
    ok: message('Verified.'),
    errors: { 400: ['Invalid or expired token', 'Invalid or expired verification link'] },
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const token = parseTokenParam(req.params.verificationToken, 'Invalid or expired token');
        const out = await callUnary(
          identity,
          'verifyUser',
          id.VerifyUserRequest.fromPartial({ verificationToken: token, correlationId: correlationId(req) }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
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
    handler:
      ({ identity, ctx }) =>
      async (req, res) => {
        const token = parseTokenParam(req.params.resetToken, 'Invalid or expired token');
        const b = parseBody(schemas.resetPassword, req.body);
        const out = await callUnary(
          identity,
          'resetPassword',
          id.ResetPasswordRequest.fromPartial({
            resetToken: token,
            password: b.password,
            correlationId: correlationId(req),
          }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
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
    handler:
      ({ identity, ctx, origin }) =>
      async (req, res) => {
        const b = parseBody(schemas.forgotPassword, req.body);
        const out = await callUnary(
          identity,
          'forgotPassword',
          id.ForgotPasswordRequest.fromPartial({
            email: b.email,
            ...origin(req),
          }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
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
    handler:
      ({ identity, ctx, origin }) =>
      async (req, res) => {
        const email = parseEmailParam(req.params.email);
        const out = await callUnary(
          identity,
          'sendLoginCode',
          id.SendLoginCodeRequest.fromPartial({
            email,
            ...origin(req),
          }),
          ctx(req),
        );
        res.json({ message: out.message });
      },
  },
  {
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
    handler:
      ({ identity, ctx, browser, signedIn }) =>
      async (req, res) => {
        const email = parseEmailParam(req.params.email);
        const b = parseBody(schemas.loginWithCode, req.body);
        const out = await callUnary(
          identity,
          'loginWithCode',
          id.LoginWithCodeRequest.fromPartial({
            email,
            loginCode: b.loginCode,
            ...browser(req),
          }),
          ctx(req),
        );
        // Spec §4: login-with-code success "shows the server message".
        signedIn(req, res, out, 200, out.message ? { message: out.message } : {});
      },
  },
  {
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
    handler:
      ({ identity, ctx, browser, signedIn }) =>
      async (req, res) => {
        const b = parseBody(schemas.google, req.body);
        const out = await callUnary(
          identity,
          'googleLogin',
          id.GoogleLoginRequest.fromPartial({
            credential: b.credential,
            ...browser(req),
          }),
          ctx(req),
        );
        signedIn(req, res, out);
      },
  },
]);
