/**
 * The claim routes (claims.ts), admin only:
 *
 *   GET    api/admin/claims                      every live claim
 *   POST   api/admin/claims {kind, id}           claim the item, or renew the caller's own claim (409: held)
 *   DELETE api/admin/claims/:kind/:id            release the caller's claim (leaving the item)
 *   POST   api/admin/claims/:kind/:id/takeover   take the item over from its holder (recorded)
 *
 * An impersonating admin carries the user's role, so none of these answers them.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { sessionOf, type Auth } from '../http/auth.js';
import { HttpError } from '../http/errors.js';
import { parseBody, parseTokenParam, requiredString } from '../http/validation.js';
import { CLAIM_MESSAGES, isClaimKind, type ClaimAdmin, type ClaimKind, type Claims } from './claims.js';

export interface ClaimRouteDeps {
  claims: Claims;
  auth: Auth;
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

export function claimsRouter({ claims, auth }: ClaimRouteDeps): Router {
  const r = Router();

  r.get('/admin/claims', auth.requireAdmin, async (_req, res) => {
    res.json({ claims: await claims.list() });
  });

  r.post('/admin/claims', auth.requireAdmin, async (req, res) => {
    const b = parseBody(claimSchemas.claim, req.body);
    const claim = await claims.claim(kindOf(b.kind), idOf(b.id), claimAdminOf(res));
    res.json({ message: CLAIM_MESSAGES.claimed, claim });
  });

  r.delete('/admin/claims/:kind/:id', auth.requireAdmin, async (req, res) => {
    const released = await claims.release(kindOf(req.params.kind), idOf(req.params.id), claimAdminOf(res).id);
    res.json({ message: CLAIM_MESSAGES.released, released });
  });

  r.post('/admin/claims/:kind/:id/takeover', auth.requireAdmin, async (req, res) => {
    const claim = await claims.takeOver(kindOf(req.params.kind), idOf(req.params.id), claimAdminOf(res));
    res.json({ message: CLAIM_MESSAGES.takenOver, claim });
  });

  return r;
}
