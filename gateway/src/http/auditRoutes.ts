/**
 * The audit trail (admin only) and the user's own security events, answered by identity's AuditService
 * over the identity client's channel:
 *
 * - GET /api/admin/audit?admin=&user=&action=&from=&to=&limit=&cursor=  `{entries, nextCursor}`;
 *   `format=csv` answers the same filters (every page) as a CSV file, CSV-injection safe.
 * - GET /api/users/securityEvents  `{events}`: the caller's sign-ins, new browsers, password changes.
 */
import type { Router, Request, Response } from 'express';
import type { Client } from '@grpc/grpc-js';
import * as au from '@meridian/proto/meridian/identity/v1/audit';
import type { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { z } from 'zod';
import type { GatewayConfig } from '../config.js';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { callUnary } from '../grpcClients.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { auditPageAnswer, securityEventsAnswer } from './answers.js';
import { INVALID_AUDIT_QUERY } from './refusals.js';
import { TAGS, json, route, routeTable, routerOf, type CallingContext } from './routeTable.js';
import type { ClaimRouteDeps } from '../live/claimsRoutes.js';

/** At most this many rows in one CSV export. */
export const CSV_MAX_ROWS = 10_000;

const text = (max: number) => z.string().trim().max(max).optional();
export const auditQuerySchema = z.object({
  admin: text(200),
  user: text(200),
  action: text(100),
  from: text(40),
  to: text(40),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: text(200),
  format: z.enum(['json', 'csv']).optional(),
});

/** A cell as a spreadsheet must never run it: quoted, and prefixed with ' when it starts like a formula. */
export function csvCell(value: string | number | boolean): string {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const CSV_COLUMNS = [
  'at',
  'admin',
  'adminId',
  'user',
  'userId',
  'action',
  'service',
  'address',
  'impersonating',
  'details',
] as const;

export function auditCsv(entries: readonly au.AuditEntry[]): string {
  const rows = entries.map((e) =>
    [
      e.at,
      e.adminEmail,
      e.adminId,
      e.userEmail,
      e.userId,
      e.action,
      e.service,
      e.address,
      e.impersonating,
      e.details,
    ]
      .map(csvCell)
      .join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

export interface AuditRouteDeps {
  config: GatewayConfig;
  identity: IdentityServiceClient;
  auth: Auth;
}

/**
 * identity serves AuditService on the same server: a client over the identity client's channel, made at the
 * first call (the route table is also built over stand-ins that have no channel).
 */
function auditClientOf(identity: IdentityServiceClient): () => au.AuditServiceClient {
  let auditClient: au.AuditServiceClient | undefined;
  return () =>
    (auditClient ??= createGrpcClient(au.AuditServiceClient, 'identity', {
      caller: 'gateway',
      channelOverride: (identity as unknown as Client).getChannel(),
    }));
}

/**
 * Records an admin's claim takeover (live/claimsRoutes.ts) in the audit trail: identity's RecordClaimTakeover
 * with the request's Caller (the admin who took over, and the client address), which identity appends as
 * ClaimTakenOver, an event its audit projection turns into an entry like every other admin action.
 */
export function claimTakeoverRecorder({
  config,
  identity,
}: Pick<AuditRouteDeps, 'config' | 'identity'>): NonNullable<ClaimRouteDeps['recordTakeover']> {
  const ctx = ctxOf(config);
  const audit = auditClientOf(identity);
  return async (req, res, t) => {
    await callUnary(
      audit(),
      'recordClaimTakeover',
      au.RecordClaimTakeoverRequest.fromPartial({
        caller: sessionOf(res).caller,
        kind: t.kind,
        itemId: t.id,
        fromAdminId: t.fromAdminId,
      }),
      ctx(req),
    );
  };
}

interface AuditContext extends CallingContext {
  auth: Auth;
  audit: () => au.AuditServiceClient;
}

const page = (
  { audit, ctx }: AuditContext,
  req: Request,
  res: Response,
  q: z.infer<typeof auditQuerySchema>,
  cursor: string,
  limit: number,
) =>
  callUnary(
    audit(),
    'listAuditEntries',
    au.ListAuditEntriesRequest.fromPartial({
      caller: sessionOf(res).caller,
      adminId: q.admin ?? '',
      userId: q.user ?? '',
      action: q.action ?? '',
      from: q.from ?? '',
      to: q.to ?? '',
      limit,
      cursor,
    }),
    ctx(req),
  );

export const AUDIT_ROUTES = routeTable<AuditContext>([
  {
    method: 'get',
    path: '/api/admin/audit',
    tag: TAGS.audit,
    summary: 'The audit trail',
    description:
      'Every admin action and every action taken while impersonating, from every service, newest first. `format=csv` answers the same filters (every page, at most 10,000 rows) as a CSV attachment whose cells never start like a formula.',
    access: 'admin',
    query: {
      admin: 'The admin (id or email).',
      user: 'The user acted on or impersonated (id or email).',
      action: 'The action (event type), e.g. `DepositConfirmed`.',
      from: 'ISO-8601 start of the period (inclusive).',
      to: 'ISO-8601 end of the period (exclusive).',
      limit: '1-500, default 50.',
      cursor: 'The `nextCursor` of the previous page.',
      format: '`json` (default) or `csv`.',
    },
    ok: json(auditPageAnswer, 'A page of the trail.'),
    errors: { 400: [INVALID_AUDIT_QUERY, 'Invalid period', 'Invalid <name> filter'] },
    handler: (c) => async (req, res) => {
      const parsed = auditQuerySchema.safeParse(req.query);
      if (!parsed.success) throw new HttpError(400, INVALID_AUDIT_QUERY);
      const q = parsed.data;
      if (q.format === 'csv') {
        const entries: au.AuditEntry[] = [];
        let cursor = '';
        do {
          const out = await page(c, req, res, q, cursor, 500);
          entries.push(...out.entries);
          cursor = out.nextCursor;
        } while (cursor && entries.length < CSV_MAX_ROWS);
        const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
        res
          .type('text/csv; charset=utf-8')
          .set('Content-Disposition', `attachment; filename="audit-${stamp}.csv"`)
          .send(auditCsv(entries.slice(0, CSV_MAX_ROWS)));
        return;
      }
      const out = await page(c, req, res, q, q.cursor ?? '', q.limit ?? 50);
      // the answer's schema keeps only the fields it names
      res.json(auditPageAnswer.parse(out));
    },
  },
  route({
    method: 'get',
    path: '/api/users/securityEvents',
    tag: TAGS.account,
    summary: "The user's own security events",
    access: 'user',
    ok: json(securityEventsAnswer, 'Sign-ins, new browsers and password changes.'),
    handler: async ({ audit }, { call }, _req, res) => {
      const out = await call(
        audit(),
        'listSecurityEvents',
        au.ListSecurityEventsRequest.fromPartial({ caller: sessionOf(res).caller, limit: 50 }),
      );
      res.json({
        events: out.events.map((e) => ({
          id: e.id,
          at: e.at,
          kind: e.kind,
          method: e.method,
          address: e.address,
        })),
      });
    },
  }),
]);

export function auditRouter({ config, identity, auth }: AuditRouteDeps): Router {
  return routerOf(AUDIT_ROUTES, { auth, ctx: ctxOf(config), audit: auditClientOf(identity) }, '/api');
}
