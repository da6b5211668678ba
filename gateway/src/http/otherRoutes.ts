import { Router } from 'express';
import type { Client } from '@grpc/grpc-js';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as nt from '@meridian/proto/meridian/notification/v1/notification';
import type { GatewayConfig } from '../config.js';
import { callUnary, checkHealth } from '../grpcClients.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { EMAIL_RE, parseBody, schemas } from './validation.js';

export interface OtherRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  notification: nt.NotificationServiceClient;
  auth: Auth;
}

/** GET /api/countries and POST /api/sendAutomatedEmail (spec §7 "Other"). */
export function otherApiRouter({ config, identity, notification, auth }: OtherRouteDeps): Router {
  const r = Router();
  const ctx = ctxOf(config);

  r.get('/countries', async (req, res) => {
    const out = await callUnary(identity, 'listCountries', id.ListCountriesRequest.fromPartial({}), ctx(req));
    res.set('Cache-Control', 'public, max-age=3600');
    res.json(out.countries.map((c) => ({ name: c.name, code: c.code })));
  });

  // Only allowlisted templates and only to the caller's own address: notification enforces both;
  // the gateway fills the caller's address from identity, never from the body.
  r.post('/sendAutomatedEmail', auth.requireUser, async (req, res) => {
    const b = parseBody(schemas.sendAutomatedEmail, req.body);
    const { caller } = sessionOf(res);
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
  });

  return r;
}

/** GET /api/dev/mailbox?to=EMAIL — mounted only outside production. */
export function devMailboxRouter({
  config,
  notification,
}: Pick<OtherRouteDeps, 'config' | 'notification'>): Router {
  const r = Router();
  const ctx = ctxOf(config);
  r.get('/mailbox', async (req, res) => {
    const to = typeof req.query.to === 'string' ? req.query.to.trim().toLowerCase() : '';
    if (
      req.query.to !== undefined &&
      (typeof req.query.to !== 'string' || (to !== '' && !EMAIL_RE.test(to)))
    ) {
      throw new HttpError(400, 'Please enter a valid email');
    }
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
