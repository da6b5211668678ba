/**
 * The claim routes (claims.ts), admin only, declared in the route table (http/routeTable.ts):
 *
 *   GET    api/admin/claims                      every live claim
 *   POST   api/admin/claims {kind, id}           claim the item, or renew the caller's own claim (409: held)
 *   DELETE api/admin/claims/:kind/:id            release the caller's claim (leaving the item)
 *   POST   api/admin/claims/:kind/:id/takeover   take the item over from its holder (recorded: the claim's
 *                                                 history, and an entry of the audit trail through identity)
 *
 * An impersonating admin carries the user's role, so none of these answers them.
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { sessionOf, type Auth } from '../http/auth.js';
import { HttpError } from '../http/errors.js';
import { claimAnswers } from '../http/answers.js';
import { mustBeString } from '../http/refusals.js';
import type { GatewayConfig } from '../config.js';
import { ctxOf } from '../http/grpcContext.js';
import { TAGS, json, route, routeTable, routerOf, type CallingContext } from '../http/routeTable.js';
import { parseTokenParam, requiredString } from '../http/validation.js';
import type { GatewayLogger } from '../logger.js';
import { CLAIM_MESSAGES, isClaimKind, type ClaimAdmin, type ClaimKind, type Claims } from './claims.js';

/** A takeover as the audit trail records it (the caller, with their address, is the admin who took over). */
export interface ClaimTakeover {
  kind: ClaimKind;
  id: string;
  fromAdminId: string;
}

export interface ClaimRouteDeps {
  config: Pick<GatewayConfig, 'grpcDeadlineMs'>;
  claims: Claims;
  auth: Auth;
  /**
   * Records a takeover in the audit trail (auditRoutes.ts: identity's RecordClaimTakeover, with the request's
   * Caller). Absent: the claim's history and the log line only.
   */
  recordTakeover?: (req: Request, res: Response, takeover: ClaimTakeover) => Promise<void>;
  /** Where a takeover that could not be recorded in the audit trail is reported. */
  logger?: Pick<GatewayLogger, 'error'>;
}

export const claimSchemas = {
  claim: z.object({
    kind: requiredString(CLAIM_MESSAGES.kind, 20),
    id: requiredString(CLAIM_MESSAGES.invalidId, 512),
  }),
};

/** The admin as claims name them: their id and the name other admins see. */
export function claimAdminOf(res: Response): ClaimAdmin {
  const p = sessionOf(res).principal;
  return { id: p.userId, name: p.user?.name || p.user?.email || 'another admin' };
}

const kindOf = (v: unknown): ClaimKind => {
  if (!isClaimKind(v)) throw new HttpError(400, CLAIM_MESSAGES.kind);
  return v;
};
const idOf = (v: unknown) => parseTokenParam(v, CLAIM_MESSAGES.invalidId);
/** The item of the path (`:kind/:id`). */
const itemParams = (p: Request['params']) => ({ kind: kindOf(p.kind), id: idOf(p.id) });

type ClaimContext = Pick<ClaimRouteDeps, 'claims' | 'auth' | 'recordTakeover' | 'logger'> & CallingContext;

export const CLAIM_ROUTES = routeTable<ClaimContext>([
  {
    method: 'get',
    path: '/api/admin/claims',
    tag: TAGS.claims,
    summary: 'Every pending item an admin is reviewing now',
    description:
      'Changes are pushed to admin sockets as `claims/changed`; fetch this list after (re)connecting.',
    access: 'admin',
    ok: json(claimAnswers.list, 'The live claims.'),
    handler:
      ({ claims }) =>
      async (_req, res) => {
        res.json({ claims: await claims.list() });
      },
  },
  route({
    method: 'post',
    path: '/api/admin/claims',
    tag: TAGS.claims,
    summary: 'Claim a pending item (or renew your own claim)',
    description:
      'Opening an item claims it for 5 minutes; claiming it again renews that (the SPA does so every minute while the admin uses the open item). Other admins see who reviews it and cannot decide it.',
    access: 'admin',
    body: claimSchemas.claim,
    ok: json(claimAnswers.outcome, "'Claimed'"),
    errors: {
      400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId, ...mustBeString('kind', 'id')],
      409: [CLAIM_MESSAGES.heldBy('<name>'), CLAIM_MESSAGES.busy],
    },
    handler: async ({ claims }, { body }, _req, res) => {
      const claim = await claims.claim(kindOf(body.kind), idOf(body.id), claimAdminOf(res));
      res.json({ message: CLAIM_MESSAGES.claimed, claim });
    },
  }),
  route({
    method: 'delete',
    path: '/api/admin/claims/:kind/:id',
    tag: TAGS.claims,
    summary: 'Release your claim (leaving the item)',
    access: 'admin',
    ok: json(claimAnswers.released, "'Released'"),
    errors: { 400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId], 409: [CLAIM_MESSAGES.busy] },
    params: itemParams,
    handler: async ({ claims }, { params }, _req, res) => {
      const released = await claims.release(params.kind, params.id, claimAdminOf(res).id);
      res.json({ message: CLAIM_MESSAGES.released, released });
    },
  }),
  route({
    method: 'post',
    path: '/api/admin/claims/:kind/:id/takeover',
    tag: TAGS.claims,
    summary: "Take an item over from the admin reviewing it (recorded in the claim's history)",
    access: 'admin',
    ok: json(claimAnswers.outcome, "'Taken over'"),
    errors: {
      400: [CLAIM_MESSAGES.kind, CLAIM_MESSAGES.invalidId],
      409: [CLAIM_MESSAGES.deciding('<name>'), CLAIM_MESSAGES.busy],
    },
    params: itemParams,
    handler: async ({ claims, recordTakeover, logger }, { params: { kind, id } }, req, res) => {
      const { takenOverFrom, ...claim } = await claims.takeOver(kind, id, claimAdminOf(res));
      if (takenOverFrom && recordTakeover) {
        // the takeover has happened (the claim's history holds it): a trail that could not be written is
        // reported loudly, never answered as a failed takeover
        await recordTakeover(req, res, { kind, id, fromAdminId: takenOverFrom.id }).catch((err: unknown) =>
          logger?.error(
            { err, event: 'ClaimTakenOver', kind, id, fromAdminId: takenOverFrom.id },
            'claim takeover not recorded in the audit trail',
          ),
        );
      }
      res.json({ message: CLAIM_MESSAGES.takenOver, claim });
    },
  }),
]);

export function claimsRouter(deps: ClaimRouteDeps): Router {
  return routerOf(CLAIM_ROUTES, { ...deps, ctx: ctxOf(deps.config) }, '/api');
}
