/**
 * GET /api/users/statement?from=&to=&format=pdf|json|csv (docs/statements.md): the signed-in
 * investor's account statement for a period, from the ledger's GetStatement (impersonation reads as the
 * impersonated user, as everywhere). An admin may add `userId=` for anyone's; anyone else asking for another
 * user's statement gets the ledger's 403.
 *
 * - json: the statement file (`meridian-statement/1`), verifiable offline with `npx meridian-verify`;
 * - csv: one row per ledger entry (posting) with seq, postedAt, reason, memo, account, amount (dollars), hash;
 *   text cells defused as the audit CSV's (`csvCell`);
 * - pdf: the same for people (statementPdf.ts).
 *
 * Period: `from` / `to` are ISO-8601 dates (`2026-11-01`; as `to`, the whole day) or date-times with a zone;
 * default from = the first day of the current month (UTC), to = now; from <= to; at most 366 days.
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import {
  DAY_MS,
  STATEMENT_FORMAT,
  formatCents,
  parseStatementInstant,
  statementMonthStart,
  type Statement,
} from 'meridian-verify';
import type { GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import { csvCell } from './auditRoutes.js';
import { STATEMENT_MESSAGES } from './refusals.js';
import { TAGS, routeTable, routerOf } from './routeTable.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { renderStatementPdf } from './statementPdf.js';

export { STATEMENT_MESSAGES };

export const MAX_STATEMENT_DAYS = 366;

export const statementQuerySchema = z.object({
  from: z.string().trim().max(40, STATEMENT_MESSAGES.from).optional(),
  to: z.string().trim().max(40, STATEMENT_MESSAGES.to).optional(),
  format: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['json', 'csv', 'pdf'], { error: STATEMENT_MESSAGES.format }))
    .optional(),
  userId: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{1,128}$/, STATEMENT_MESSAGES.userId)
    .optional(),
});

/** The validated query: the period as instants (defaults applied) and the format. */
export function parseStatementQuery(
  query: unknown,
  now: Date,
): { from: Date; to: Date; format: 'json' | 'csv' | 'pdf'; userId?: string } {
  const parsed = statementQuerySchema.safeParse(query);
  if (!parsed.success) throw new HttpError(400, parsed.error.issues[0]?.message ?? STATEMENT_MESSAGES.format);
  const q = parsed.data;
  const from = q.from ? parseStatementInstant(q.from, 'from') : statementMonthStart(now);
  if (!from) throw new HttpError(400, STATEMENT_MESSAGES.from);
  const to = q.to ? parseStatementInstant(q.to, 'to') : now;
  if (!to) throw new HttpError(400, STATEMENT_MESSAGES.to);
  if (from.getTime() > to.getTime()) throw new HttpError(400, STATEMENT_MESSAGES.order);
  if (to.getTime() - from.getTime() > MAX_STATEMENT_DAYS * DAY_MS)
    throw new HttpError(400, STATEMENT_MESSAGES.tooLong);
  return { from, to, format: q.format ?? 'json', userId: q.userId };
}

/** The ledger's answer as the statement file, keys in the documented order. */
export function statementJson(s: lg.Statement): Statement {
  const link = (l: lg.ChainLink | undefined) => ({ seq: l?.seq ?? 0, hash: l?.hash ?? '' });
  return {
    format: STATEMENT_FORMAT,
    userId: s.userId,
    from: s.from,
    to: s.to,
    generatedAt: s.generatedAt,
    accounts: s.accounts.map((a) => ({
      accountId: a.accountId,
      kind: a.kind,
      openingCents: a.openingCents,
      closingCents: a.closingCents,
    })),
    opening: link(s.opening),
    entries: s.entries.map((e) => ({
      seq: e.seq,
      transactionId: e.transactionId,
      postedAt: e.postedAt,
      reason: e.reason,
      memo: e.memo,
      postings: e.postings.map((p) => ({ accountId: p.accountId, amountCents: p.amountCents })),
      prevHash: e.prevHash,
      hash: e.hash,
    })),
    head: link(s.head),
  };
}

export const STATEMENT_CSV_COLUMNS = [
  'seq',
  'postedAt',
  'reason',
  'memo',
  'account',
  'amount',
  'hash',
] as const;

/**
 * One row per ledger entry (each posting of each transaction). Text cells go through the audit CSV's
 * `csvCell` (never read as a formula); amounts are written as we format them (`-600.00`, digits only).
 */
export function statementCsv(s: Statement): string {
  const rows = s.entries.flatMap((e) =>
    e.postings.map((p) =>
      [
        csvCell(e.seq),
        csvCell(e.postedAt),
        csvCell(e.reason),
        csvCell(e.memo),
        csvCell(p.accountId),
        formatCents(p.amountCents).replace(/,/g, ''),
        csvCell(e.hash),
      ].join(','),
    ),
  );
  return [STATEMENT_CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

export interface StatementRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  money: MoneyClients;
  auth: Auth;
}

function statementContext({ config, identity, money, auth }: StatementRouteDeps) {
  const ctx = ctxOf(config);

  /** The name and email on the PDF: identity's view of the caller (their own statement only). */
  const ownName = async (req: Request, res: Response) => {
    try {
      const u = await callUnary(
        identity,
        'getUser',
        id.GetUserRequest.fromPartial({ caller: sessionOf(res).caller }),
        ctx(req),
      );
      return { userName: u.name, userEmail: u.email };
    } catch {
      return {};
    }
  };
  return { auth, identity, money, ctx, ownName };
}

export const STATEMENT_ROUTES = routeTable<ReturnType<typeof statementContext>>([
  {
    method: 'get',
    path: '/api/users/statement',
    tag: TAGS.account,
    summary: "The caller's verifiable account statement for a period",
    description:
      'Opening and closing balances per account, every ledger transaction of the period with its link in the ' +
      "user's hash chain (SHA-256, docs/statements.md), the chain head. `format=json` (default) is the " +
      '`meridian-statement/1` file that `npx meridian-verify` checks; `csv` one row per ledger entry; `pdf` for ' +
      'people. An attachment `meridian-statement-<from>-<to>.<format>`. Admins may add `userId`.',
    access: 'user',
    money: true,
    query: {
      from: 'A date (`2026-11-01`) or ISO-8601 date-time; default the first day of the current month (UTC).',
      to: 'A date (the whole day) or ISO-8601 date-time; default now. At most 366 days after `from`.',
      format: '`json` (default), `csv` or `pdf`.',
      userId: "Admins: another user's statement.",
    },
    ok: {
      description: 'The statement file.',
      media: { type: 'application/json', schema: { type: 'object' } },
    },
    errors: {
      400: Object.values(STATEMENT_MESSAGES),
      403: ['Not authorized'],
    },
    handler:
      ({ money, ctx, ownName }) =>
      async (req, res) => {
        const q = parseStatementQuery(req.query, new Date());
        const session = sessionOf(res);
        const out = await callUnary(
          money.ledger,
          'getStatement',
          lg.GetStatementRequest.fromPartial({
            caller: session.caller,
            callerRole: session.principal.role,
            userId: q.userId ?? '',
            from: q.from.toISOString(),
            to: q.to.toISOString(),
          }),
          ctx(req),
        );
        const statement = statementJson(out);
        const name = `meridian-statement-${statement.from.slice(0, 10)}-${statement.to.slice(0, 10)}`;
        const attach = (ext: string) =>
          res.set('Content-Disposition', `attachment; filename="${name}.${ext}"`);
        if (q.format === 'csv') {
          attach('csv').type('text/csv; charset=utf-8').send(statementCsv(statement));
          return;
        }
        if (q.format === 'pdf') {
          const own = statement.userId === session.caller.userId ? await ownName(req, res) : {};
          const pdf = await renderStatementPdf(statement, own);
          attach('pdf').type('application/pdf').send(pdf);
          return;
        }
        attach('json')
          .type('application/json; charset=utf-8')
          .send(`${JSON.stringify(statement, null, 2)}\n`);
      },
  },
]);

export function statementRouter(deps: StatementRouteDeps): Router {
  return routerOf(STATEMENT_ROUTES, statementContext(deps), '/api');
}
