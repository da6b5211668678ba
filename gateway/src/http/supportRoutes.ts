/**
 * The support chat's REST paths (the support service over gRPC: services/support/README.md), declared in
 * the route table (routeTable.ts); the admins' are in supportAdminRoutes.ts:
 *
 *   public    GET  support/config                              {liveChatScriptUrl, online, nextAvailableAt}
 *   investor  GET  support/conversations/mine                  {conversation|null, messages}
 *   or visitor POST support/conversations/mine/messages        {text} → 201 {message, conversation}
 *   visitor   POST support/conversations/visitor               {name, email, text} → 201 {conversation, messages}
 *             POST support/conversations/visitor/resume        {token} (the emailed link's) → {conversation, messages}
 *   admin     GET  support/conversations?status&assigned&q     {conversations}
 *             GET  support/unread                              {count}
 *             GET  support/canned-replies                      {replies}
 *             GET  support/conversations/{id}                  {conversation, messages} (internal notes too)
 *             GET  support/conversations/{id}/summary          the side panel: {balances, kycStatus, pending, …}
 *             POST support/conversations/{id}/messages         {text, internal?} → 201 {message, conversation}
 *             POST support/conversations/{id}/deposit-address  {addressId} → 201 {message, conversation}
 *             POST support/conversations/{id}/assign           {assigneeId?: id | 'me' | ''} → {conversation}
 *             POST support/conversations/{id}/close|reopen|block → {conversation}
 *             GET  admin/deposit-addresses                     {addresses}
 *             POST admin/deposit-addresses                     {network, label, address} → 201 {address}
 *             POST admin/deposit-addresses/{id}/retire         {message, address}
 *   files     POST support/conversations/mine/attachments      investor or visitor, multipart {file, text?} → 201
 *             POST support/conversations/{id}/attachments      admin, multipart {file, text?, internal?} → 201
 *             GET  support/attachments/{attachmentId}          the conversation's person or an admin: the file,
 *                                                              as an attachment under a sandboxing CSP (404 to anyone
 *                                                              else; 401 with no session and no visitor cookie)
 *
 * An attachment (one file a message, at most 10 MB) is read here (fileUpload.ts) and judged by its content
 * in the support service, which stores it sealed with the conversation owner's key; a refused one leaves
 * nothing stored. Uploads are rate limited per client address and per person (`supportAttachment`).
 *
 * A visitor is known by an httpOnly cookie holding their access token (set when they start, or when they
 * come back through the emailed link): `mine` answers a visitor's conversation when no one is signed in.
 * Visitors are rate limited per client address (new conversations)
 * and per address and conversation (messages per minute). A reply or a deposit address sent to a
 * conversation nobody holds claims it for the admin (live/claims.ts, kind 'support'); one another admin
 * holds is refused (409). An investor only ever reaches their own conversation.
 */
import type { Router } from 'express';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import { supportAnswers, supportConversationViewAnswer, supportSentAnswer } from './answers.js';
import { INVALID_EMAIL, NOT_LOGGED_IN, mustBeString } from './refusals.js';
import { HttpError } from './errors.js';
import { clientAddress } from './grpcContext.js';
import { closeUnlessDrainable, maxUploadBytes } from './fileUpload.js';
import { DOCUMENT_CSP } from './kycRoutes.js';
import { TAGS, json, route, routeTable, routerOf, type Route } from './routeTable.js';
import { parseTokenParam } from './validation.js';
import {
  ATTACHMENT_REFUSALS,
  SUPPORT_ATTACHMENT_MESSAGES,
  SUPPORT_ROUTE_MESSAGES,
  SUPPORT_VISITOR_COOKIE,
  attachmentDisposition,
  attachmentForm,
  availabilityOf,
  sentJson,
  supportSchemas,
  withMessagesJson,
} from './supportViews.js';
import { SUPPORT_ADMIN_ROUTES } from './supportAdminRoutes.js';
import {
  OWN_MESSAGE_REFUSALS,
  type SupportContext,
  type SupportRouteDeps,
  apply,
  supportContext,
} from './supportContext.js';

const SUPPORT_OWN_ROUTES: Route<SupportContext>[] = [
  // ---------------------------------------------------------------- the launcher
  {
    method: 'get',
    path: '/api/support/config',
    tag: TAGS.support,
    summary: 'What the chat launcher needs: a third-party widget, or when support is next available',
    access: 'public',
    local: true,
    ok: json(supportAnswers.config, 'The launcher configuration.'),
    handler:
      ({ config }) =>
      (_req, res) => {
        res.json({
          liveChatScriptUrl: config.liveChatScriptUrl ?? null,
          ...availabilityOf(config.supportHours, new Date()),
        });
      },
  },

  // ---------------------------------------------------------------- investors and visitors
  route({
    method: 'get',
    path: '/api/support/conversations/mine',
    tag: TAGS.support,
    summary: 'The caller’s conversation and its messages',
    description:
      'A signed-in investor’s own conversation (null before their first message; a visitor conversation opened with their verified email joins it); without a session, the conversation of the visitor cookie. Internal notes are never included.',
    access: 'user',
    guardedByHandler: true,
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: { 401: [SUPPORT_ROUTE_MESSAGES.noVisitor, SUPPORT_ROUTE_MESSAGES.badLink] },
    handler: async ({ support, auth, investor, visitorToken }, { call }, req, res) => {
      const out = (await auth.optional(req, res))
        ? await call(support, 'getMine', sp.GetMineRequest.fromPartial(investor(res)))
        : await call(support, 'getVisitor', sp.VisitorRequest.fromPartial({ token: visitorToken(req) }));
      res.json(withMessagesJson(out));
    },
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/mine/messages',
    tag: TAGS.support,
    summary: 'Send a message to support (opens the conversation on the first)',
    description: 'Plain text, 1 to 2,000 characters. A visitor (cookie) is limited in messages per minute.',
    access: 'userSelf',
    impersonatingRefusal: 'Messages cannot be sent while impersonating a user',
    guardedByHandler: true,
    body: supportSchemas.message,
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: [SUPPORT_ROUTE_MESSAGES.noText, SUPPORT_ROUTE_MESSAGES.longText, ...mustBeString('text')],
      ...OWN_MESSAGE_REFUSALS,
    },
    handler: async ({ support, auth, investor, visitorToken, visitorMessages }, input, req, res) => {
      // who sends (a session, else a visitor's cookie) is settled before the body is read
      const session = await auth.optional(req, res);
      const token = session ? '' : visitorToken(req);
      if (!session) await apply(visitorMessages, req, res);
      const { body, call } = input;
      const out = session
        ? await call(support, 'sendMine', sp.SendMineRequest.fromPartial({ ...investor(res), ...body }))
        : await call(support, 'sendVisitor', sp.SendVisitorRequest.fromPartial({ token, ...body }));
      res.status(201).json(sentJson(out));
    },
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/mine/attachments',
    tag: TAGS.support,
    summary: 'Send a file (a screenshot or PDF of the transfer) to support, with an optional text',
    description:
      'multipart/form-data: `file` (one, ≤ 10 MB: jpeg, png, gif, webp, bmp, heic or pdf judged by its content, never by its name or declared type; an image 32 to 12,000 pixels a side) and `text` (0 to 2,000 characters). Kept private, sealed with the conversation owner’s personal-data key; a refused file leaves nothing stored. Opens the conversation on the first message, like a text. A visitor (cookie) is limited in messages per minute.',
    access: 'userSelf',
    impersonatingRefusal: 'Messages cannot be sent while impersonating a user',
    guardedByHandler: true,
    files: ['file'],
    formFields: { text: 'The message beside the file (optional).' },
    rateLimit: 'supportAttachment',
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: ATTACHMENT_REFUSALS,
      ...OWN_MESSAGE_REFUSALS,
      413: [SUPPORT_ATTACHMENT_MESSAGES.tooLarge],
    },
    handler: async (
      { support, auth, investor, visitorToken, visitorMessages, attachmentLimit },
      { call },
      req,
      res,
    ) => {
      const session = await auth.optional(req, res);
      const token = session ? '' : visitorToken(req);
      await apply(attachmentLimit, req, res);
      if (!session) await apply(visitorMessages, req, res);
      const { text, attachment } = await attachmentForm(req);
      const out = session
        ? await call(
            support,
            'sendMine',
            sp.SendMineRequest.fromPartial({ ...investor(res), text, attachment }),
          )
        : await call(support, 'sendVisitor', sp.SendVisitorRequest.fromPartial({ token, text, attachment }));
      res.status(201).json(sentJson(out));
    },
  }),
  /**
   * A message's file: for the conversation's investor (or its visitor, by the cookie) and admins; 404 for
   * anyone else. Saved, never shown as a page of ours: an attachment, sandboxed with nothing it may load
   * or run when a browser shows it anyway (an <img>, a PDF viewer).
   */
  route({
    method: 'get',
    path: '/api/support/attachments/:attachmentId',
    tag: TAGS.support,
    summary: 'A file attached to a message',
    description:
      "To the conversation’s investor (or its visitor, by the cookie) and to admins; 404 for anyone else, and for a file whose owner was deleted (shredded). An internal note’s file is for admins only. Served as an attachment (`Content-Disposition: attachment`) under `Content-Security-Policy: sandbox; default-src 'none'`, with nosniff and no-store, as KYC documents.",
    access: 'user',
    guardedByHandler: true,
    ok: {
      description: 'The file’s bytes, with the content type of its kind.',
      media: {
        type: 'application/octet-stream',
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    },
    errors: {
      400: [SUPPORT_ATTACHMENT_MESSAGES.notFound],
      401: [NOT_LOGGED_IN],
      404: [SUPPORT_ATTACHMENT_MESSAGES.notFound],
    },
    params: (p) => ({ attachmentId: parseTokenParam(p.attachmentId, SUPPORT_ATTACHMENT_MESSAGES.notFound) }),
    handler: async ({ support, auth, caller }, { params, call }, req, res) => {
      const session = await auth.optional(req, res);
      const token: unknown = req.cookies?.[SUPPORT_VISITOR_COOKIE];
      if (!session && (typeof token !== 'string' || !token)) throw new HttpError(401, NOT_LOGGED_IN);
      const out = await call(
        support,
        'getAttachment',
        sp.GetAttachmentRequest.fromPartial(
          session ? { ...caller(res), ...params } : { visitorToken: String(token), ...params },
        ),
      );
      const name = out.attachment?.name || 'attachment';
      res.writeHead(200, {
        'content-type': out.contentType,
        'content-length': String(out.content.length),
        'content-disposition': attachmentDisposition(name),
        'content-security-policy': DOCUMENT_CSP,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        pragma: 'no-cache',
        'cross-origin-resource-policy': 'same-origin',
      });
      res.end(out.content);
    },
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/visitor',
    tag: TAGS.support,
    summary: 'A visitor (not signed in) starts a conversation: name, email and the first message',
    description:
      'Sets the visitor cookie (httpOnly) and emails a link back to the conversation. Limited per client address and email.',
    access: 'public',
    body: supportSchemas.visitorStart,
    rateLimit: 'supportVisitorStart',
    status: 201,
    ok: json(supportConversationViewAnswer, 'Started.'),
    errors: {
      400: [
        SUPPORT_ROUTE_MESSAGES.name,
        INVALID_EMAIL,
        'Your name must be at most 100 characters',
        SUPPORT_ROUTE_MESSAGES.noText,
        SUPPORT_ROUTE_MESSAGES.longText,
        ...mustBeString('name', 'email', 'text'),
      ],
    },
    middleware: ({ limit }) => [
      limit('supportVisitorStart', (req) => String((req.body as { email?: unknown })?.email ?? '')),
    ],
    handler: async ({ support, setVisitorCookie }, { body, call }, req, res) => {
      const out = await call(
        support,
        'startVisitor',
        sp.StartVisitorRequest.fromPartial({ ...body, clientAddress: clientAddress(req) }),
      );
      setVisitorCookie(res, out.token);
      res.status(201).json(withMessagesJson(out.conversation ?? { messages: [] }));
    },
  }),
  /** The emailed link's token (`/?support=<token>`) becomes the visitor cookie of this browser. */
  route({
    method: 'post',
    path: '/api/support/conversations/visitor/resume',
    tag: TAGS.support,
    summary: 'Come back to a visitor conversation with the emailed link’s token (sets the visitor cookie)',
    access: 'public',
    body: supportSchemas.visitorResume,
    rateLimit: 'supportVisitorMessage',
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: { 400: [SUPPORT_ROUTE_MESSAGES.badLink], 401: [SUPPORT_ROUTE_MESSAGES.badLink] },
    middleware: ({ limit }) => [limit('supportVisitorMessage')],
    handler: async ({ support, setVisitorCookie }, { body, call }, _req, res) => {
      const out = await call(support, 'getVisitor', sp.VisitorRequest.fromPartial(body));
      setVisitorCookie(res, body.token);
      res.json(withMessagesJson(out));
    },
  }),
];

export const SUPPORT_ROUTES = routeTable<SupportContext>([...SUPPORT_OWN_ROUTES, ...SUPPORT_ADMIN_ROUTES]);

/**
 * The support routes, then the upload bounds of the two attachment paths (fileUpload.ts): an upload refused
 * before its body was read keeps its connection only when the rest can be drained in bounds.
 */
export function supportRouter(deps: SupportRouteDeps): Router {
  const r = routerOf(SUPPORT_ROUTES, supportContext(deps), '/api');
  const uploadBounds = closeUnlessDrainable(maxUploadBytes(MAX_UPLOAD_BYTES));
  r.use('/support/conversations/mine/attachments', uploadBounds);
  r.use('/support/conversations/:id/attachments', uploadBounds);
  return r;
}
