/**
 * KYC under /api/users (services/kyc/README.md):
 *
 *   POST  /uploadKycDocuments            session, CSRF, rate limit → proxied (streamed) to kyc POST /upload
 *   GET   /kyc/document/:userId/:side    session → proxied to kyc GET /documents/:userId/:side
 *   GET   /kyc/pending                   admin → KycService.ListPending
 *   PATCH /kyc/approve/:id, /reject/:id  admin → KycService.Approve / Reject
 *
 * The two proxied routes are mounted BEFORE the body parsers so the multipart stream reaches the kyc
 * service untouched (no fixRequestBody needed). Every x-user-* / x-internal-token header the browser
 * sent is removed; the trusted ones are set from identity's Authenticate (and GetUser for the upload).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type Request, type RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as kyc from '@meridian/proto/meridian/kyc/v1/kyc';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { GatewayLogger } from '../logger.js';
import type { PendingKycUserAnswer } from './answers.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError, SERVICE_UNAVAILABLE } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { correlationId, rateLimit } from './middleware.js';
import { parseBody, parseTokenParam, schemas } from './validation.js';

export interface KycRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  kyc: kyc.KycServiceClient;
  kv: KeyValueStore;
  auth: Auth;
  logger: GatewayLogger;
}

/** Headers only the gateway may set on requests to the kyc service. */
const TRUSTED_PREFIXES = ['x-user-', 'x-internal-'];
/** Browser credentials the kyc service never needs. */
const DROPPED = ['cookie', 'authorization', 'x-xsrf-token'];

interface KycProxyTarget {
  path: string;
  headers: Record<string, string>;
}

const targetOf = (req: IncomingMessage): KycProxyTarget | undefined =>
  (req as IncomingMessage & { kycTarget?: KycProxyTarget }).kycTarget;

/** The pending-list item, exactly as GET /api/users/kyc/pending lists it (also pushed live). */
export function pendingUserJson(p: {
  userId: string;
  name: string;
  email: string;
  kycStatus?: string;
  frontDoc: string;
  backDoc: string;
  submittedAt: string;
}): PendingKycUserAnswer {
  return {
    _id: p.userId,
    name: p.name,
    email: p.email,
    kycStatus: p.kycStatus || 'Pending',
    kyc: { frontDoc: p.frontDoc, backDoc: p.backDoc },
    submittedAt: p.submittedAt,
  };
}

/** Routes that stream to the kyc service: mount before any body parser. */
export function kycProxyRouter({ config, identity, kv, auth, logger }: KycRouteDeps): Router {
  const r = Router();
  const ctx = ctxOf(config);

  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: config.kycHttpUrl,
    changeOrigin: true,
    xfwd: false,
    proxyTimeout: 5 * 60_000,
    pathRewrite: (_path, req) => targetOf(req)?.path ?? '/not-routed',
    on: {
      proxyReq: (proxyReq, req) => {
        for (const name of proxyReq.getHeaderNames()) {
          if (TRUSTED_PREFIXES.some((p) => name.startsWith(p)) || DROPPED.includes(name)) {
            proxyReq.removeHeader(name);
          }
        }
        const target = targetOf(req);
        for (const [k, v] of Object.entries(target?.headers ?? {})) proxyReq.setHeader(k, v);
      },
      error: (err, req, res) => {
        logger.error({ err, correlationId: correlationId(req as Request) }, 'kyc proxy failed');
        if (!('writeHead' in res)) {
          res.destroy();
          return;
        }
        const out = res as ServerResponse;
        if (out.headersSent) {
          out.destroy();
          return;
        }
        const body = JSON.stringify({ message: SERVICE_UNAVAILABLE });
        out.writeHead(503, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          'cache-control': 'no-store',
        });
        out.end(body);
      },
    },
  });

  const forward =
    (build: (req: Request, headers: Record<string, string>) => Promise<string> | string): RequestHandler =>
    async (req, res, next) => {
      const s = sessionOf(res);
      const headers: Record<string, string> = {
        'x-internal-token': config.kycInternalToken,
        'x-user-id': s.principal.userId,
        'x-user-role': s.principal.role,
        'x-correlation-id': correlationId(req),
      };
      if (s.principal.impersonatorId) headers['x-user-impersonator-id'] = s.principal.impersonatorId;
      const path = await build(req, headers);
      (req as unknown as { kycTarget: KycProxyTarget }).kycTarget = { path, headers };
      await proxy(req, res, next);
    };

  const uploadLimit = rateLimit(
    kv,
    'kycUpload',
    { ...DEFAULT_RATE_LIMITS.kycUpload, ...config.rateLimits?.kycUpload },
    (req) => (req.res ? sessionOf(req.res).principal.userId : undefined),
  );

  r.post(
    '/uploadKycDocuments',
    auth.requireUser,
    uploadLimit,
    forward(async (req, headers) => {
      const u = await callUnary(
        identity,
        'getUser',
        id.GetUserRequest.fromPartial({ caller: sessionOf(req.res!).caller }),
        ctx(req),
      );
      headers['x-user-verified'] = u.isVerified ? 'true' : 'false';
      headers['x-user-name'] = encodeURIComponent(u.name);
      headers['x-user-email'] = encodeURIComponent(u.email);
      return '/upload';
    }),
  );

  r.get(
    '/kyc/document/:userId/:side',
    auth.requireUser,
    forward((req) => {
      const owner = parseTokenParam(req.params.userId, 'Document not found');
      const side = req.params.side;
      if (side !== 'front' && side !== 'back') throw new HttpError(404, 'Document not found');
      return `/documents/${encodeURIComponent(owner)}/${side}`;
    }),
  );

  return r;
}

/** Admin review over gRPC (mounted inside the API router, after the body parsers). */
export function kycAdminRouter({ config, kyc: client, auth }: KycRouteDeps): Router {
  const r = Router();
  const ctx = ctxOf(config);

  r.get('/kyc/pending', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const out = await callUnary(
      client,
      'listPending',
      kyc.ListPendingRequest.fromPartial({ caller: s.caller, callerRole: s.principal.role }),
      ctx(req),
    );
    res.json({ pendingUsers: out.pendingUsers.map(pendingUserJson) });
  });

  r.patch('/kyc/approve/:id', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const out = await callUnary(
      client,
      'approve',
      kyc.ApproveRequest.fromPartial({ caller: s.caller, callerRole: s.principal.role, userId }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  r.patch('/kyc/reject/:id', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const b = parseBody(schemas.kycReject, req.body ?? {});
    const out = await callUnary(
      client,
      'reject',
      kyc.RejectRequest.fromPartial({
        caller: s.caller,
        callerRole: s.principal.role,
        userId,
        reason: b.reason ?? '',
      }),
      ctx(req),
    );
    res.json({ message: out.message });
  });

  return r;
}
