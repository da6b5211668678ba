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
 *
 * The upload is refused here, before a byte goes to the kyc service, while an admin impersonates the
 * user (maker-checker), when it is not multipart/form-data (400) and when its Content-Length is over two
 * documents' worth (413). An answer given before the body was read keeps the connection usable: Node
 * reads the rest of a body of a bounded, announced length; any other one is answered with
 * `Connection: close`. A failed proxying answers 503 (or ends the connection when the answer had begun)
 * and never leaves the browser's request half read on a kept-alive connection.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as kyc from '@meridian/proto/meridian/kyc/v1/kyc';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/app/heldRequest/domain/makerChecker';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { GatewayLogger } from '../logger.js';
import type { Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import type { PendingKycUserAnswer } from './answers.js';
import { sessionOf, type Auth } from './auth.js';
import { HttpError, SERVICE_UNAVAILABLE } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { pageParams, setNextCursor } from './pages.js';
import { correlationId, rateLimit } from './middleware.js';
import { parseBody, parseTokenParam, schemas } from './validation.js';

export interface KycRouteDeps {
  config: GatewayConfig;
  identity: id.IdentityServiceClient;
  kyc: kyc.KycServiceClient;
  kv: KeyValueStore;
  auth: Auth;
  logger: GatewayLogger;
  /** A decision needs the deciding admin's claim on the submission (live/claims.ts; id: the user's). */
  claims: Claims;
}

/** The upload's refusals of the gateway's own (the kyc service answers the others). */
export const KYC_UPLOAD_MESSAGES = {
  /** The spec's text for an upload without both files, which a body of another type cannot hold. */
  bothSides: 'Please upload both front and back documents.',
  tooLarge: 'File size must be less than 10MB.',
  impersonating: MAKER_CHECKER_MESSAGES.kycUploadImpersonating,
} as const;

/**
 * The most an upload may weigh: two documents at the kyc service's limit (10,485,760 bytes each,
 * services/kyc/README.md) and room for the multipart framing. A larger Content-Length is refused unread.
 */
export const MAX_KYC_UPLOAD_BYTES = 2 * 10_485_760 + 64 * 1024;

/** The Content-Length the request announced (Node has checked it is a number), if any. */
const announcedLength = (req: IncomingMessage): number | undefined => {
  const length = req.headers['content-length'];
  return length === undefined ? undefined : Number(length);
};

/**
 * What is left of the body, if anything, may be read and dropped to keep the connection: its length is
 * announced and within the upload's limit.
 */
const drainable = (req: IncomingMessage): boolean =>
  req.complete || (announcedLength(req) ?? Infinity) <= MAX_KYC_UPLOAD_BYTES;

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
      proxyRes: (proxyRes) => {
        // the kyc connection's own (http-proxy asks it for `Connection: close`): the browser's connection
        // stays open or ends by its own request, not by that one
        delete proxyRes.headers.connection;
      },
      error: (err, req, res) => {
        logger.error({ err, correlationId: correlationId(req as Request) }, 'kyc proxy failed');
        // what is left of the browser's body goes nowhere now: read and drop it, and end the connection
        // after the answer (never a request left half read on a kept-alive connection)
        req.unpipe();
        req.resume();
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
          connection: 'close',
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

  /** Refused before the kyc service sees a byte: impersonation, the rate limit, the body's type and size. */
  const refuseImpersonation: RequestHandler = (_req, res, next) => {
    if (sessionOf(res).caller.impersonatorId) throw new HttpError(403, KYC_UPLOAD_MESSAGES.impersonating);
    next();
  };
  const requireMultipart: RequestHandler = (req, _res, next) => {
    if (!req.is('multipart/form-data')) throw new HttpError(400, KYC_UPLOAD_MESSAGES.bothSides);
    if ((announcedLength(req) ?? 0) > MAX_KYC_UPLOAD_BYTES)
      throw new HttpError(413, KYC_UPLOAD_MESSAGES.tooLarge);
    next();
  };

  r.post(
    '/uploadKycDocuments',
    auth.requireUser,
    refuseImpersonation,
    uploadLimit,
    requireMultipart,
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

  // every refusal of the upload above is given before its body is read: a body that cannot be read
  // and dropped in bounds ends the connection after the answer
  r.use('/uploadKycDocuments', ((err, req, res, next) => {
    if (!drainable(req)) res.setHeader('connection', 'close');
    next(err);
  }) as ErrorRequestHandler);

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
export function kycAdminRouter({ config, kyc: client, auth, claims }: KycRouteDeps): Router {
  const r = Router();
  const ctx = ctxOf(config);

  r.get('/kyc/pending', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const out = await callUnary(
      client,
      'listPending',
      kyc.ListPendingRequest.fromPartial({
        caller: s.caller,
        callerRole: s.principal.role,
        ...pageParams(req),
      }),
      ctx(req),
    );
    setNextCursor(res, out.nextCursor);
    res.json({ pendingUsers: out.pendingUsers.map(pendingUserJson) });
  });

  r.patch('/kyc/approve/:id', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const out = await claims.decide('kyc', userId, claimAdminOf(res), () =>
      callUnary(
        client,
        'approve',
        kyc.ApproveRequest.fromPartial({ caller: s.caller, callerRole: s.principal.role, userId }),
        ctx(req),
      ),
    );
    res.json({ message: out.message });
  });

  r.patch('/kyc/reject/:id', auth.requireAdmin, async (req, res) => {
    const s = sessionOf(res);
    const userId = parseTokenParam(req.params.id, 'Invalid user id');
    const b = parseBody(schemas.kycReject, req.body ?? {});
    const out = await claims.decide('kyc', userId, claimAdminOf(res), () =>
      callUnary(
        client,
        'reject',
        kyc.RejectRequest.fromPartial({
          caller: s.caller,
          callerRole: s.principal.role,
          userId,
          reason: b.reason ?? '',
        }),
        ctx(req),
      ),
    );
    res.json({ message: out.message });
  });

  return r;
}
