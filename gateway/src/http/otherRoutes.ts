import type { RequestHandler, Router } from 'express';
import type { Client } from '@grpc/grpc-js';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as nt from '@meridian/proto/meridian/notification/v1/notification';
import type { GatewayConfig } from '../config.js';
import { checkHealth } from '../grpcClients.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { DEFAULT_AVATAR_PATH } from './userView.js';
import { EMAIL_RE, schemas } from './validation.js';
import { countryAnswer, healthAnswer, mailAnswer, readinessAnswer } from './answers.js';
import { ALL_FIELDS_REQUIRED, INVALID_EMAIL, mustBeString } from './refusals.js';
import {
  TAGS,
  json,
  message,
  route,
  routeTable,
  routerOf,
  type CallingContext,
  type Route,
} from './routeTable.js';
import { z } from 'zod';

/** What notification answers for a sent automated email (services/notification AUTOMATED_EMAIL_MESSAGES.sent). */
export const AUTOMATED_EMAIL_SENT = 'Email sent successfully';

/**
 * Templates clients post for events whose email the services already send on the event itself
 * (passwordChanged on a password change, roleChanged on a role change): answered as sent, sent once.
 */
export const EVENT_EMAIL_TEMPLATES: ReadonlySet<string> = new Set(['changePassword', 'changeRole']);

/** A neutral head-and-shoulders silhouette (96 × 96), served at DEFAULT_AVATAR_PATH. */
export const DEFAULT_AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96" role="img" aria-label="Avatar">
<rect width="96" height="96" rx="48" fill="#dde3ea"/>
<circle cx="48" cy="38" r="17" fill="#8a99a8"/>
<path d="M16 84c4-17 17-26 32-26s28 9 32 26a48 48 0 0 1-64 0z" fill="#8a99a8"/>
</svg>
`;

export interface OtherRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  notification: nt.NotificationServiceClient;
  auth: Auth;
}

interface OtherContext extends CallingContext {
  auth: Auth;
  identity: id.IdentityServiceClient;
  notification: nt.NotificationServiceClient;
}

/** GET /api/countries, POST /api/sendAutomatedEmail (also under /api/users), the default avatar (spec §7 "Other"). */
export const OTHER_ROUTES = routeTable<OtherContext>([
  route({
    method: 'get',
    path: '/api/countries',
    tag: TAGS.other,
    summary: 'Countries',
    access: 'public',
    ok: json(z.array(countryAnswer), 'Every country, `{name, code}`.'),
    handler: async ({ identity }, { call }, _req, res) => {
      const out = await call(identity, 'listCountries', id.ListCountriesRequest.fromPartial({}));
      res.set('Cache-Control', 'public, max-age=3600');
      return out.countries;
    },
  }),
  ...(['/api/sendAutomatedEmail', '/api/users/sendAutomatedEmail'] as const).map(
    (path): Route<OtherContext> =>
      route({
        method: 'post',
        path,
        tag: TAGS.other,
        summary: path.includes('/users/')
          ? 'Send an automated notice (the same, under /users)'
          : 'Send an automated notice',
        description:
          'Allowlisted templates (depositNotice, investmentNotice, withdrawalNotice), to the caller’s own address only. ' +
          'changePassword and changeRole are answered as sent without a second email: the services email those events themselves.',
        access: 'user',
        body: schemas.sendAutomatedEmail,
        ok: message('Sent.'),
        errors: {
          400: [
            ALL_FIELDS_REQUIRED,
            INVALID_EMAIL,
            'This email template is not allowed. Allowed: investmentNotice, depositNotice, withdrawalNotice',
            'The link must point to this site',
            ...mustBeString('subject', 'send_to', 'reply_to', 'template', 'url'),
          ],
          403: ['You can only send emails to your own address'],
          429: ['Too many emails, please try again later'],
        },
        // Only allowlisted templates and only to the caller's own address: notification enforces both;
        // the gateway fills the caller's address from identity, never from the body. Served at both paths
        // clients use (spec §7 "sendAutomatedEmail": api/ and api/users/).
        handler: async ({ identity, notification }, { body, call }, _req, res) => {
          const { caller } = sessionOf(res);
          if (EVENT_EMAIL_TEMPLATES.has(body.template)) return { message: AUTOMATED_EMAIL_SENT };
          const me = await call(identity, 'getUser', id.GetUserRequest.fromPartial({ caller }));
          const { send_to: sendTo, reply_to: replyTo, ...rest } = body;
          return call(
            notification,
            'sendAutomatedEmail',
            nt.SendAutomatedEmailRequest.fromPartial({
              caller,
              callerEmail: me.email,
              callerName: me.name,
              sendTo,
              replyTo,
              ...rest,
            }),
          );
        },
      }),
  ),
  // The default avatar answered as `photo` for users without a picture (userView.ts): any origin may
  // show it (an SPA hosted elsewhere loads it with <img>), and it never changes.
  {
    method: 'get',
    path: DEFAULT_AVATAR_PATH,
    tag: TAGS.other,
    summary: 'The default avatar',
    description: 'The `photo` of every user and referral who set no picture (an absolute URL to this path).',
    access: 'public',
    local: true,
    ok: {
      description: 'An SVG image.',
      media: { type: 'image/svg+xml', schema: { type: 'string' } },
    },
    handler: () => (_req, res) => {
      res
        .set('Cache-Control', 'public, max-age=86400')
        .set('Cross-Origin-Resource-Policy', 'cross-origin')
        .type('image/svg+xml')
        .send(DEFAULT_AVATAR_SVG);
    },
  },
]);

export function otherApiRouter({ config, identity, notification, auth }: OtherRouteDeps): Router {
  return routerOf(OTHER_ROUTES, { auth, identity, notification, ctx: ctxOf(config) }, '/api');
}

/** The served OpenAPI document (openapi.ts), built once per app by apiDocs.ts. */
export interface ApiDocsContext {
  /** The document as JSON text. */
  body: string;
  /** The document as one HTML page. */
  page: string;
}

/** GET /api/openapi.json and GET /api/docs (apiDocs.ts builds what they send). */
export const API_DOCS_ROUTES = routeTable<ApiDocsContext>([
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: TAGS.other,
    summary: 'This document',
    access: 'public',
    local: true,
    ok: {
      description: 'The OpenAPI 3.1 document.',
      media: { type: 'application/json', schema: { type: 'object' } },
    },
    handler:
      ({ body }) =>
      (_req, res) => {
        res.set('Cache-Control', 'no-cache').type('application/json').send(body);
      },
  },
  {
    method: 'get',
    path: '/api/docs',
    tag: TAGS.other,
    summary: 'This document, readable',
    access: 'public',
    local: true,
    ok: { description: 'An HTML page.', media: { type: 'text/html', schema: { type: 'string' } } },
    handler:
      ({ page }) =>
      (_req, res) => {
        res.set('Cache-Control', 'no-cache').type('html').send(page);
      },
  },
]);

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/;
const isLoopback = (address: string | undefined) => address !== undefined && LOOPBACK.test(address);

/**
 * Lets through only a client on this machine: the TCP peer is loopback, so is the client address Express
 * derives (TRUST_PROXY), and nothing was forwarded (a proxy on this machine serving someone else). Anyone
 * else gets the same 404 as a route that does not exist.
 */
export const loopbackOnly: RequestHandler = (req, _res, next) => {
  const local =
    isLoopback(req.socket?.remoteAddress) &&
    isLoopback(req.ip) &&
    req.get('x-forwarded-for') === undefined &&
    req.get('forwarded') === undefined;
  next(
    local
      ? undefined
      : new HttpError(404, `Not found: ${req.method} ${req.originalUrl?.split('?')[0] ?? ''}`),
  );
};

interface DevMailboxContext extends CallingContext {
  notification: nt.NotificationServiceClient;
}

/**
 * GET /api/dev/mailbox?to=EMAIL: mounted only outside production, behind loopbackOnly: the mail of ONE
 * address (an empty or missing `to` is refused, never everyone's).
 */
export const DEV_MAILBOX_ROUTES = routeTable<DevMailboxContext>([
  route({
    method: 'get',
    path: '/api/dev/mailbox',
    tag: TAGS.other,
    summary: 'Emails sent (development only)',
    description:
      'Every email the product sent to one address, newest first; answered to a client on the same machine only (404 to anyone else), and the route does not exist in production.',
    access: 'public',
    devOnly: true,
    query: { to: 'The address whose emails to list (required).' },
    ok: json(z.array(mailAnswer), 'The emails.'),
    errors: { 400: [INVALID_EMAIL] },
    // the answer's schema keeps each email's fields
    handler: async ({ notification }, { call }, req, res) => {
      const to = typeof req.query.to === 'string' ? req.query.to.trim().toLowerCase() : '';
      if (!EMAIL_RE.test(to)) throw new HttpError(400, INVALID_EMAIL);
      const out = await call(notification, 'listMailbox', nt.ListMailboxRequest.fromPartial({ to }));
      res.set('Cache-Control', 'no-store');
      return out.messages.sort((a, b) => (a.sentAt < b.sentAt ? 1 : a.sentAt > b.sentAt ? -1 : 0));
    },
  }),
]);

export function devMailboxRouter({
  config,
  notification,
}: Pick<OtherRouteDeps, 'config' | 'notification'>): Router {
  return routerOf(DEV_MAILBOX_ROUTES, { notification, ctx: ctxOf(config) }, '/api/dev');
}

interface HealthContext {
  identity: Client;
  notification: Client;
  kyc: Client;
}

/** GET /healthz (liveness) and GET /readyz (identity, notification and kyc answer their gRPC health checks). */
export const HEALTH_ROUTES = routeTable<HealthContext>([
  {
    method: 'get',
    path: '/healthz',
    tag: TAGS.operations,
    summary: 'Liveness',
    access: 'public',
    local: true,
    ok: json(healthAnswer, 'The process is up.'),
    handler: () => (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ status: 'ok' });
    },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: TAGS.operations,
    summary: 'Readiness: identity, notification and kyc answer their health checks',
    access: 'public',
    local: true,
    ok: json(readinessAnswer, 'Ready.'),
    errors: { 503: [] },
    handler:
      ({ identity, notification, kyc }) =>
      async (_req, res) => {
        const [idOk, ntOk, kycOk] = await Promise.all([
          checkHealth(identity),
          checkHealth(notification),
          checkHealth(kyc),
        ]);
        const ready = idOk && ntOk && kycOk;
        res
          .status(ready ? 200 : 503)
          .set('Cache-Control', 'no-store')
          .json({
            status: ready ? 'ready' : 'not ready',
            checks: {
              identity: idOk ? 'ok' : 'down',
              notification: ntOk ? 'ok' : 'down',
              kyc: kycOk ? 'ok' : 'down',
            },
          });
      },
  },
]);

export function healthRouter({
  identity,
  notification,
  kyc,
}: Pick<OtherRouteDeps, 'identity' | 'notification'> & { kyc: Client }): Router {
  return routerOf(HEALTH_ROUTES, { identity, notification, kyc }, '');
}
