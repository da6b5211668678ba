import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Client } from '@grpc/grpc-js';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as nt from '@meridian/proto/meridian/notification/v1/notification';
import type { GatewayConfig } from '../config.js';
import { callUnary, checkHealth } from '../grpcClients.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { DEFAULT_AVATAR_PATH } from './userView.js';
import { EMAIL_RE, INVALID_EMAIL, parseBody, schemas } from './validation.js';

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

/** GET /api/countries, POST /api/sendAutomatedEmail (also under /api/users), the default avatar (spec §7 "Other"). */
export function otherApiRouter({ config, identity, notification, auth }: OtherRouteDeps): Router {
  const r = Router();
  const ctx = ctxOf(config);

  r.get('/countries', async (req, res) => {
    const out = await callUnary(identity, 'listCountries', id.ListCountriesRequest.fromPartial({}), ctx(req));
    res.set('Cache-Control', 'public, max-age=3600');
    res.json(out.countries.map((c) => ({ name: c.name, code: c.code })));
  });

  // Only allowlisted templates and only to the caller's own address: notification enforces both;
  // the gateway fills the caller's address from identity, never from the body. Served at both paths
  // clients use (spec §7 "sendAutomatedEmail": api/ and api/users/).
  const sendAutomatedEmail = async (req: Request, res: Response) => {
    const b = parseBody(schemas.sendAutomatedEmail, req.body);
    const { caller } = sessionOf(res);
    if (EVENT_EMAIL_TEMPLATES.has(b.template)) {
      res.json({ message: AUTOMATED_EMAIL_SENT });
      return;
    }
    const me = await callUnary(identity, 'getUser', id.GetUserRequest.fromPartial({ caller }), ctx(req));
    const out = await callUnary(
      notification,
      'sendAutomatedEmail',
      nt.SendAutomatedEmailRequest.fromPartial({
        caller,
        callerEmail: me.email,
        callerName: me.name,
        subject: b.subject,
        sendTo: b.send_to,
        replyTo: b.reply_to,
        template: b.template,
        url: b.url ?? '',
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  };
  r.post('/sendAutomatedEmail', auth.requireUser, sendAutomatedEmail);
  r.post('/users/sendAutomatedEmail', auth.requireUser, sendAutomatedEmail);

  // The default avatar answered as `photo` for users without a picture (userView.ts): any origin may
  // show it (an SPA hosted elsewhere loads it with <img>), and it never changes.
  r.get(DEFAULT_AVATAR_PATH.slice('/api'.length), (_req, res) => {
    res
      .set('Cache-Control', 'public, max-age=86400')
      .set('Cross-Origin-Resource-Policy', 'cross-origin')
      .type('image/svg+xml')
      .send(DEFAULT_AVATAR_SVG);
  });

  return r;
}

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

/**
 * GET /api/dev/mailbox?to=EMAIL — mounted only outside production, behind loopbackOnly: the mail of ONE
 * address (an empty or missing `to` is refused, never everyone's).
 */
export function devMailboxRouter({
  config,
  notification,
}: Pick<OtherRouteDeps, 'config' | 'notification'>): Router {
  const r = Router();
  const ctx = ctxOf(config);
  r.get('/mailbox', async (req, res) => {
    const to = typeof req.query.to === 'string' ? req.query.to.trim().toLowerCase() : '';
    if (!EMAIL_RE.test(to)) throw new HttpError(400, INVALID_EMAIL);
    const out = await callUnary(
      notification,
      'listMailbox',
      nt.ListMailboxRequest.fromPartial({ to }),
      ctx(req),
    );
    const messages = out.messages
      .map((m) => ({
        id: m.id,
        from: m.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        links: m.links,
        sentAt: m.sentAt,
      }))
      .sort((a, b) => (a.sentAt < b.sentAt ? 1 : a.sentAt > b.sentAt ? -1 : 0));
    res.set('Cache-Control', 'no-store');
    res.json(messages);
  });
  return r;
}

/** GET /healthz (liveness) and GET /readyz (identity and notification answer their gRPC health checks). */
export function healthRouter({
  identity,
  notification,
  kyc,
}: Pick<OtherRouteDeps, 'identity' | 'notification'> & { kyc: Client }): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
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
  });
  return r;
}
