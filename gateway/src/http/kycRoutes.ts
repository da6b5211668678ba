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
import type { Request, RequestHandler, Response, Router } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { QueuePageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as id from '@meridian/proto/meridian/identity/v1/identity';
import * as kyc from '@meridian/proto/meridian/kyc/v1/kyc';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { DEFAULT_RATE_LIMITS, type GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { GatewayLogger } from '../logger.js';
import type { Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import type { PendingKycUserAnswer } from './answers.js';
import { sessionOf, type Auth, type Session } from './auth.js';
import { HttpError } from './errors.js';
import { INVALID_USER_ID, KYC_UPLOAD_MESSAGES, SERVICE_UNAVAILABLE, mustBeString } from './refusals.js';
import { announcedLength, closeUnlessDrainable } from './fileUpload.js';
import { ctxOf } from './grpcContext.js';
import { pageParams, setNextCursor } from './pages.js';
import { correlationId, rateLimit } from './middleware.js';
import { parseTokenParam, schemas } from './validation.js';
import { pendingKycAnswer } from './answers.js';
import { CLAIM_REFUSALS, CLAIM_RULE, paged } from './routeDocs.js';
import {
  TAGS,
  json,
  message,
  route,
  routeTable,
  routerOf,
  type CallingContext,
  type RequestCall,
  type RouteInput,
} from './routeTable.js';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';

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

/** What a KYC document may do when a browser shows it: nothing (no script, no request, no form). */
export const DOCUMENT_CSP = "sandbox; default-src 'none'";

/**
 * The most an upload may weigh: two documents at the kyc service's limit (10,485,760 bytes each,
 * services/kyc/README.md) and room for the multipart framing. A larger Content-Length is refused unread.
 */
export const MAX_KYC_UPLOAD_BYTES = 2 * 10_485_760 + 64 * 1024;

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
function kycUploadContext({ config, identity, kv, auth, logger }: KycRouteDeps) {
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
      proxyRes: (proxyRes, req) => {
        // the kyc connection's own (http-proxy asks it for `Connection: close`): the browser's connection
        // stays open or ends by its own request, not by that one
        delete proxyRes.headers.connection;
        // a document is never a page of ours: an attachment, sandboxed with nothing it may load or run
        if (proxyRes.statusCode === 200 && targetOf(req)?.path.startsWith('/documents/')) {
          proxyRes.headers['content-security-policy'] = DOCUMENT_CSP;
          const disposition = proxyRes.headers['content-disposition'] ?? '';
          proxyRes.headers['content-disposition'] =
            disposition.replace(/^\s*inline\b/i, 'attachment') || 'attachment';
        }
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
  return { auth, identity, ctx, forward, uploadLimit, refuseImpersonation, requireMultipart };
}

/** The user's documents: the upload and the download stream through to the kyc service. */
export const KYC_DOCUMENT_ROUTES = routeTable<ReturnType<typeof kycUploadContext>>([
  {
    method: 'post',
    path: '/api/users/uploadKycDocuments',
    tag: TAGS.kyc,
    summary: 'Upload the identity documents',
    description:
      'multipart/form-data with files `front` and `back` (≤ 10 MB each; jpeg, png, gif, webp, bmp, heic or pdf), streamed to the kyc service. Another content type is refused (400), and so is a Content-Length over two documents (413), before the body is read. Refused while an admin impersonates the user.',
    access: 'userSelf',
    files: ['front', 'back'],
    rateLimit: 'kycUpload',
    ok: message('Uploaded; pending review.'),
    errors: {
      400: [
        KYC_UPLOAD_MESSAGES.bothSides,
        KYC_UPLOAD_MESSAGES.tooLarge,
        'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
        'Please verify your email before uploading documents',
      ],
      403: [KYC_UPLOAD_MESSAGES.impersonating],
      409: ['Your documents are already under review', 'Your identity is already verified'],
      413: [KYC_UPLOAD_MESSAGES.tooLarge],
    },
    impersonatingRefusal: 'KYC documents cannot be uploaded while impersonating a user',
    middleware: ({ uploadLimit, refuseImpersonation, requireMultipart }) => [
      refuseImpersonation,
      uploadLimit,
      requireMultipart,
    ],
    handler: ({ identity, ctx, forward }) =>
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
  },
  {
    method: 'get',
    path: '/api/users/kyc/document/:userId/:side',
    tag: TAGS.kyc,
    summary: 'One uploaded document (front or back)',
    description: 'To its owner or an admin; sent with nosniff and no-store.',
    access: 'user',
    ok: {
      description: 'The document bytes.',
      media: {
        type: 'application/octet-stream',
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    },
    errors: { 403: ['Not authorized to view this document'], 404: ['Document not found'] },
    handler: ({ forward }) =>
      forward((req) => {
        const owner = parseTokenParam(req.params.userId, 'Document not found');
        const side = req.params.side;
        if (side !== 'front' && side !== 'back') throw new HttpError(404, 'Document not found');
        return `/documents/${encodeURIComponent(owner)}/${side}`;
      }),
  },
]);

/** KYC uploads and documents stream through to the kyc service: mounted before any body parser. */
export function kycProxyRouter(deps: KycRouteDeps): Router {
  const r = routerOf(KYC_DOCUMENT_ROUTES, kycUploadContext(deps), '/api/users');
  // every refusal of the upload above is given before its body is read: a body that cannot be read
  // and dropped in bounds ends the connection after the answer
  r.use('/uploadKycDocuments', closeUnlessDrainable(MAX_KYC_UPLOAD_BYTES));

  return r;
}

interface KycReviewContext extends CallingContext {
  auth: Auth;
  client: KycServiceClient;
  claims: Claims;
}

/**
 * An admin's decision on a user's KYC case (`PATCH .../:id`, the user's id, parsed by the route): made under
 * the deciding admin's claim on it (409 when another admin holds it); `command` is kyc's decision, the answer
 * its message.
 */
const kycDecision =
  <B>(
    command: (
      client: KycServiceClient,
      caller: { caller: Session['caller']; callerRole: Session['principal']['role']; userId: string },
      call: RequestCall,
      body: B,
    ) => Promise<{ message: string }>,
  ) =>
  (
    { client, claims }: KycReviewContext,
    { params: userId, body, call }: RouteInput<B, string>,
    _req: Request,
    res: Response,
  ) => {
    const s = sessionOf(res);
    const caller = { caller: s.caller, callerRole: s.principal.role, userId };
    return claims.decide('kyc', userId, claimAdminOf(res), () => command(client, caller, call, body));
  };

/** What an admin's KYC decision may answer besides a bad id or reason. */
const KYC_DECISION_ERRORS = {
  403: [MAKER_CHECKER_MESSAGES.ownDecision('KYC case')],
  404: ['No KYC submission found for this user'],
  409: [
    'This KYC request has already been approved',
    'This KYC request has already been rejected',
    ...CLAIM_REFUSALS,
  ],
};

/** The admin's review of the KYC cases, over gRPC. */
export const KYC_REVIEW_ROUTES = routeTable<KycReviewContext>([
  route({
    method: 'get',
    path: '/api/users/kyc/pending',
    tag: TAGS.kyc,
    summary: 'Submissions waiting for review, oldest first',
    ...paged('oldest first'),
    access: 'admin',
    ok: json(pendingKycAnswer, 'The pending submissions.'),
    handler: async ({ client }, { call }, req, res) => {
      const s = sessionOf(res);
      const out = await call(
        client,
        'listPending',
        QueuePageRequest.fromPartial({
          caller: s.caller,
          callerRole: s.principal.role,
          ...pageParams(req),
        }),
      );
      setNextCursor(res, out.nextCursor);
      return { pendingUsers: out.pendingUsers.map(pendingUserJson) };
    },
  }),
  route({
    method: 'patch',
    path: '/api/users/kyc/approve/:id',
    tag: TAGS.kyc,
    summary: 'Approve a submission',
    description: CLAIM_RULE,
    access: 'admin',
    ok: message("'KYC approved successfully!'"),
    errors: {
      400: [INVALID_USER_ID],
      ...KYC_DECISION_ERRORS,
    },
    params: (p) => parseTokenParam(p.id, INVALID_USER_ID),
    handler: kycDecision((client, caller, call) =>
      call(client, 'approve', kyc.ApproveRequest.fromPartial(caller)),
    ),
  }),
  route({
    method: 'patch',
    path: '/api/users/kyc/reject/:id',
    tag: TAGS.kyc,
    summary: 'Reject a submission',
    description: `An optional \`reason\` is shown to the user. ${CLAIM_RULE}`,
    access: 'admin',
    body: schemas.kycReject,
    ok: message("'KYC rejected successfully!'"),
    errors: {
      400: [INVALID_USER_ID, 'reason must be at most 500 characters', ...mustBeString('reason')],
      ...KYC_DECISION_ERRORS,
    },
    params: (p) => parseTokenParam(p.id, INVALID_USER_ID),
    handler: kycDecision((client, caller, call, body) =>
      call(client, 'reject', kyc.RejectRequest.fromPartial({ ...caller, reason: body.reason ?? '' })),
    ),
  }),
]);

/** Admin review over gRPC (mounted inside the API router, after the body parsers). */
export function kycAdminRouter({ config, kyc: client, auth, claims }: KycRouteDeps): Router {
  return routerOf(KYC_REVIEW_ROUTES, { auth, client, claims, ctx: ctxOf(config) }, '/api/users');
}
