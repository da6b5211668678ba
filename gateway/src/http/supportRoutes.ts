/**
 * The support chat's REST paths (the support service over gRPC: services/support/README.md):
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
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { z } from 'zod';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import type { SupportMessage } from '@meridian/proto/meridian/support/v1/events';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as kycPb from '@meridian/proto/meridian/kyc/v1/kyc';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import { DEFAULT_RATE_LIMITS, type GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import type { Claims } from '../live/claims.js';
import { claimAdminOf } from '../live/claimsRoutes.js';
import { sessionOf, type Auth } from './auth.js';
import { NOT_LOGGED_IN } from './refusals.js';
import type { CookiePolicy } from './cookies.js';
import { HttpError } from './errors.js';
import { clientAddress, ctxOf } from './grpcContext.js';
import { closeUnlessDrainable, maxUploadBytes, readMultipart } from './fileUpload.js';
import { DOCUMENT_CSP } from './kycRoutes.js';
import { rateLimit } from './middleware.js';
import { balancesJson, depositJson, withdrawalJson } from './moneyViews.js';
import { optionalString, parseBody, parseTokenParam, requiredString } from './validation.js';

export const SUPPORT_VISITOR_COOKIE = 'meridian_support_visitor';
const VISITOR_COOKIE_MAX_AGE_MS = 180 * 24 * 60 * 60_000;

export const SUPPORT_ROUTE_MESSAGES = {
  invalidId: 'Invalid conversation id',
  invalidAddressId: 'Invalid address id',
  noVisitor: 'Start a conversation first',
  textType: 'text must be a string',
  filters: 'status must be open or closed; assigned must be me, none or any',
  retired: 'Address retired',
} as const;

export const SUPPORT_ATTACHMENT_MESSAGES = {
  notMultipart: 'Send the file as multipart/form-data in the field "file"',
  noFile: 'Please choose a file to attach',
  tooLarge: 'File size must be less than 10MB.',
  notFound: 'Attachment not found',
} as const;

/** One file a message (the service's limit, 10,485,760 bytes) and the message's text fields. */
const ATTACHMENT_UPLOAD = {
  maxFileBytes: MAX_UPLOAD_BYTES,
  fileField: 'file',
  fields: ['text', 'internal'],
  maxFieldBytes: 20_000,
  messages: SUPPORT_ATTACHMENT_MESSAGES,
} as const;

/** The multipart form of a message with a file: {file, text?, internal?}. */
async function attachmentForm(req: Request) {
  const form = await readMultipart(req, ATTACHMENT_UPLOAD);
  if (!form.file) throw new HttpError(400, SUPPORT_ATTACHMENT_MESSAGES.noFile);
  return {
    attachment: sp.AttachmentUpload.fromPartial(form.file),
    text: form.fields.text ?? '',
    internal: form.fields.internal === 'true',
  };
}

/** Runs a middleware inside a handler (a limit that applies to one kind of caller only). */
const apply = (mw: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => {
    void Promise.resolve(mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
  });

/** `attachment; filename=…` with an ASCII fallback and the UTF-8 name (the service made it safe). */
export const attachmentDisposition = (name: string): string =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/**
 * Support's business hours (SUPPORT_HOURS, e.g. "Mon-Fri 09:00-18:00", UTC): whether support is available
 * now and, when not, the next opening. No hours configured: always available.
 */
export function availabilityOf(
  hours: { days: number[]; from: number; to: number } | undefined,
  now: Date,
): { online: boolean; nextAvailableAt: string | null } {
  if (!hours) return { online: true, nextAvailableAt: null };
  const minutes = now.getUTCHours() * 60 + now.getUTCMinutes();
  if (hours.days.includes(now.getUTCDay()) && minutes >= hours.from && minutes < hours.to)
    return { online: true, nextAvailableAt: null };
  for (let d = 0; d <= 7; d++) {
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + d));
    const opens = new Date(day.getTime() + hours.from * 60_000);
    if (hours.days.includes(day.getUTCDay()) && opens > now)
      return { online: false, nextAvailableAt: opens.toISOString() };
  }
  return { online: false, nextAvailableAt: null };
}

/** Canned replies admins pick from (SUPPORT_CANNED_REPLIES_JSON replaces them). */
export const DEFAULT_CANNED_REPLIES: ReadonlyArray<{ id: string; title: string; text: string }> = [
  {
    id: 'greeting',
    title: 'Greeting',
    text: 'Hello, thank you for contacting Meridian support. How can we help you today?',
  },
  {
    id: 'deposit-how',
    title: 'How to deposit',
    text: 'To deposit, send the funds to the address we share here, on the network it names only, then declare the amount on the Deposit screen choosing that address. An admin confirms it once the transfer arrives.',
  },
  {
    id: 'deposit-received',
    title: 'Deposit received',
    text: 'We can see your transfer: your deposit will be confirmed shortly.',
  },
  {
    id: 'verify-email',
    title: 'Verify your email',
    text: 'Please verify your email first: use the link we emailed you, or resend it from your dashboard.',
  },
  { id: 'closing', title: 'Closing', text: 'Is there anything else we can help you with?' },
];

/** Body schemas of the support routes (also the request bodies of the OpenAPI document). */
export const supportSchemas = {
  message: z.object({ text: optionalString(20_000) }),
  supportMessage: z.object({
    text: optionalString(20_000),
    internal: z.boolean({ error: 'internal must be true or false' }).optional(),
  }),
  visitorStart: z.object({
    name: requiredString('Please enter your name', 200),
    email: requiredString('Please enter a valid email', 254),
    text: optionalString(20_000),
  }),
  visitorResume: z.object({ token: requiredString('This conversation link is not valid', 600) }),
  depositAddress: z.object({ addressId: requiredString('Please choose a deposit address', 100) }),
  assign: z.object({ assigneeId: optionalString(100) }),
  addAddress: z.object({
    network: requiredString('Please choose a network', 20),
    label: requiredString('Please enter a label', 200),
    address: requiredString('Enter the deposit address.', 200),
  }),
};

export interface SupportRouteDeps {
  config: GatewayConfig;
  support: sp.SupportServiceClient;
  kyc: KycServiceClient;
  money?: MoneyClients;
  kv: KeyValueStore;
  auth: Auth;
  claims: Claims;
  cookies: CookiePolicy;
  /** Canned replies (default DEFAULT_CANNED_REPLIES). */
  cannedReplies?: ReadonlyArray<{ id: string; title: string; text: string }>;
}

// ---------------------------------------------------------------- answers

export interface SupportAttachmentJson {
  _id: string;
  name: string;
  kind: string;
  size: number;
  /** Where the file is served (GET, same origin, with the session or the visitor cookie). */
  url: string;
}

export interface SupportMessageJson {
  _id: string;
  conversationId: string;
  from: string;
  text: string;
  createdAt: string;
  internal: boolean;
  authorId: string;
  depositAddress: { addressId: string; network: string; address: string; label: string } | null;
  attachment: SupportAttachmentJson | null;
}

export function supportMessageJson(m: SupportMessage): SupportMessageJson {
  return {
    _id: m.messageId,
    conversationId: m.conversationId,
    from: m.from,
    text: m.text,
    createdAt: m.createdAt,
    internal: m.internal,
    authorId: m.authorId,
    depositAddress: m.depositAddress
      ? {
          addressId: m.depositAddress.addressId,
          network: m.depositAddress.network,
          address: m.depositAddress.address,
          label: m.depositAddress.label,
        }
      : null,
    attachment: m.attachment
      ? {
          _id: m.attachment.attachmentId,
          name: m.attachment.name,
          kind: m.attachment.kind,
          size: m.attachment.size,
          url: `/api/support/attachments/${encodeURIComponent(m.attachment.attachmentId)}`,
        }
      : null,
  };
}

export function conversationJson(c: sp.Conversation) {
  return {
    _id: c.conversationId,
    userId: c.userId || null,
    visitorId: c.visitorId || null,
    name: c.name,
    email: c.email,
    status: c.status,
    assigneeId: c.assigneeId || null,
    startedAt: c.startedAt,
    lastMessageAt: c.lastMessageAt,
    lastMessageText: c.lastMessageText,
    unread: c.unread,
    blocked: c.blocked,
  };
}

const withMessagesJson = (c: sp.ConversationWithMessages) => ({
  conversation: c.conversation ? conversationJson(c.conversation) : null,
  messages: c.messages.map(supportMessageJson),
});

const sentJson = (s: sp.SendResponse) => ({
  message: s.message ? supportMessageJson(s.message) : null,
  conversation: s.conversation ? conversationJson(s.conversation) : null,
});

const addressJson = (a: sp.DepositAddress) => ({
  _id: a.addressId,
  network: a.network,
  label: a.label,
  address: a.address,
  status: a.status,
  createdAt: a.createdAt,
  createdBy: a.createdBy,
});

// ---------------------------------------------------------------- routes

export function supportRouter(deps: SupportRouteDeps): Router {
  const { config, support, auth, claims, kv, cookies } = deps;
  const ctx = ctxOf(config);
  const caller = (res: Response) => {
    const s = sessionOf(res);
    return { caller: s.caller, callerRole: s.principal.role };
  };
  /** The signed-in caller's id, if any (auth.optional or a require* ran before). */
  const signedIn = (res: Response | undefined): string | undefined => {
    const resolved = res?.locals.auth as object | undefined;
    return resolved && 'session' in resolved ? sessionOf(res!).principal.userId : undefined;
  };
  const limit = (
    name: 'supportVisitorStart' | 'supportVisitorMessage' | 'supportAttachment',
    subject?: (req: Request) => string | undefined,
  ) => rateLimit(kv, name, { ...DEFAULT_RATE_LIMITS[name], ...config.rateLimits?.[name] }, subject);
  const idParam = (v: unknown) => parseTokenParam(v, SUPPORT_ROUTE_MESSAGES.invalidId);
  const visitorToken = (req: Request): string => {
    const token: unknown = req.cookies?.[SUPPORT_VISITOR_COOKIE];
    if (typeof token !== 'string' || !token) throw new HttpError(401, SUPPORT_ROUTE_MESSAGES.noVisitor);
    return token;
  };
  const setVisitorCookie = (res: Response, token: string) =>
    res.cookie(SUPPORT_VISITOR_COOKIE, token, {
      httpOnly: true,
      sameSite: cookies.sameSite,
      secure: cookies.secure,
      path: '/api/support',
      maxAge: VISITOR_COOKIE_MAX_AGE_MS,
    });
  const investor = (res: Response) => {
    const s = sessionOf(res);
    return {
      ...caller(res),
      callerName: s.principal.user?.name ?? '',
      callerEmail: s.principal.user?.email ?? '',
      callerVerified: s.principal.user?.isVerified ?? false,
    };
  };

  const r = Router();

  // ---------------------------------------------------------------- the launcher
  r.get('/support/config', (_req, res) => {
    res.json({
      liveChatScriptUrl: config.liveChatScriptUrl ?? null,
      ...availabilityOf(config.supportHours, new Date()),
    });
  });

  // ---------------------------------------------------------------- investors and visitors
  /**
   * `mine`: a signed-in investor's own conversation; without a session, the conversation of the visitor
   * cookie (401 with neither).
   */
  r.get('/support/conversations/mine', async (req, res) => {
    const session = await auth.optional(req, res);
    const out = session
      ? await callUnary(support, 'getMine', sp.GetMineRequest.fromPartial(investor(res)), ctx(req))
      : await callUnary(
          support,
          'getVisitor',
          sp.VisitorRequest.fromPartial({ token: visitorToken(req) }),
          ctx(req),
        );
    res.json(withMessagesJson(out));
  });

  const visitorMessages = limit(
    'supportVisitorMessage',
    (req) => String(req.cookies?.[SUPPORT_VISITOR_COOKIE] ?? '').split('.')[0],
  );
  r.post('/support/conversations/mine/messages', async (req, res) => {
    const session = await auth.optional(req, res);
    const b = parseBody(supportSchemas.message, req.body);
    if (!session) {
      const token = visitorToken(req);
      await new Promise<void>((resolve, reject) =>
        visitorMessages(req, res, (err?: unknown) => (err ? reject(err) : resolve())),
      );
      const sent = await callUnary(
        support,
        'sendVisitor',
        sp.SendVisitorRequest.fromPartial({ token, text: b.text ?? '' }),
        ctx(req),
      );
      return void res.status(201).json(sentJson(sent));
    }
    const out = await callUnary(
      support,
      'sendMine',
      sp.SendMineRequest.fromPartial({ ...investor(res), text: b.text ?? '' }),
      ctx(req),
    );
    res.status(201).json(sentJson(out));
  });

  const attachmentLimit = limit(
    'supportAttachment',
    (req) => signedIn(req.res) ?? String(req.cookies?.[SUPPORT_VISITOR_COOKIE] ?? '').split('.')[0],
  );
  const uploadBounds = closeUnlessDrainable(maxUploadBytes(MAX_UPLOAD_BYTES));

  r.post('/support/conversations/mine/attachments', async (req, res) => {
    const session = await auth.optional(req, res);
    const token = session ? '' : visitorToken(req);
    await apply(attachmentLimit, req, res);
    if (!session) await apply(visitorMessages, req, res);
    const form = await attachmentForm(req);
    const out = session
      ? await callUnary(
          support,
          'sendMine',
          sp.SendMineRequest.fromPartial({ ...investor(res), text: form.text, attachment: form.attachment }),
          ctx(req),
        )
      : await callUnary(
          support,
          'sendVisitor',
          sp.SendVisitorRequest.fromPartial({ token, text: form.text, attachment: form.attachment }),
          ctx(req),
        );
    res.status(201).json(sentJson(out));
  });
  r.use('/support/conversations/mine/attachments', uploadBounds);

  /**
   * A message's file: for the conversation's investor (or its visitor, by the cookie) and admins; 404 for
   * anyone else. Saved, never shown as a page of ours: an attachment, sandboxed with nothing it may load
   * or run when a browser shows it anyway (an <img>, a PDF viewer).
   */
  r.get('/support/attachments/:attachmentId', async (req, res) => {
    const attachmentId = parseTokenParam(req.params.attachmentId, SUPPORT_ATTACHMENT_MESSAGES.notFound);
    const session = await auth.optional(req, res);
    const token: unknown = req.cookies?.[SUPPORT_VISITOR_COOKIE];
    if (!session && (typeof token !== 'string' || !token)) throw new HttpError(401, NOT_LOGGED_IN);
    const out = await callUnary(
      support,
      'getAttachment',
      sp.GetAttachmentRequest.fromPartial(
        session ? { ...caller(res), attachmentId } : { visitorToken: String(token), attachmentId },
      ),
      ctx(req),
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
  });

  r.post(
    '/support/conversations/visitor',
    limit('supportVisitorStart', (req) => String((req.body as { email?: unknown })?.email ?? '')),
    async (req, res) => {
      const b = parseBody(supportSchemas.visitorStart, req.body);
      const out = await callUnary(
        support,
        'startVisitor',
        sp.StartVisitorRequest.fromPartial({
          name: b.name,
          email: b.email,
          text: b.text ?? '',
          clientAddress: clientAddress(req),
        }),
        ctx(req),
      );
      setVisitorCookie(res, out.token);
      res.status(201).json(withMessagesJson(out.conversation ?? { messages: [] }));
    },
  );

  /** The emailed link's token (`/?support=<token>`) becomes the visitor cookie of this browser. */
  r.post('/support/conversations/visitor/resume', limit('supportVisitorMessage'), async (req, res) => {
    const b = parseBody(supportSchemas.visitorResume, req.body);
    const out = await callUnary(
      support,
      'getVisitor',
      sp.VisitorRequest.fromPartial({ token: b.token }),
      ctx(req),
    );
    setVisitorCookie(res, b.token);
    res.json(withMessagesJson(out));
  });

  // ---------------------------------------------------------------- admins
  r.get('/support/conversations', auth.requireAdmin, async (req, res) => {
    const status = typeof req.query.status === 'string' ? req.query.status : '';
    const assigned = typeof req.query.assigned === 'string' ? req.query.assigned : 'any';
    if (!['', 'open', 'closed'].includes(status) || !['me', 'none', 'any'].includes(assigned))
      throw new HttpError(400, SUPPORT_ROUTE_MESSAGES.filters);
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 200) : '';
    const out = await callUnary(
      support,
      'listConversations',
      sp.ListConversationsRequest.fromPartial({ ...caller(res), status, assigned, q }),
      ctx(req),
    );
    res.json({ conversations: out.conversations.map(conversationJson) });
  });

  r.get('/support/unread', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      support,
      'countUnread',
      sp.CountUnreadRequest.fromPartial(caller(res)),
      ctx(req),
    );
    res.json({ count: out.count });
  });

  r.get('/support/canned-replies', auth.requireAdmin, (_req, res) => {
    res.json({ replies: deps.cannedReplies ?? DEFAULT_CANNED_REPLIES });
  });

  const conversationRequest = (req: Request, res: Response) =>
    sp.ConversationRequest.fromPartial({ ...caller(res), conversationId: idParam(req.params.id) });

  r.get('/support/conversations/:id', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(support, 'getConversation', conversationRequest(req, res), ctx(req));
    res.json(withMessagesJson(out));
  });

  r.get('/support/conversations/:id/summary', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(support, 'getConversation', conversationRequest(req, res), ctx(req));
    const c = out.conversation!;
    res.json(await summaryOf(deps, req, res, c));
  });

  /** A reply (or deposit address) claims the conversation for this admin; another admin's hold is a 409. */
  const claimFor = async (res: Response, conversationId: string) =>
    claims.claim('support', conversationId, claimAdminOf(res));

  /** Support writes in the conversation: a note changes nothing the person sees and needs no claim; a reply claims it. */
  const sendAsSupport = async (
    req: Request,
    res: Response,
    conversationId: string,
    message: { text: string; internal: boolean; attachment?: sp.SendSupportRequest['attachment'] },
  ) => {
    if (!message.internal) await claimFor(res, conversationId);
    const out = await callUnary(
      support,
      'sendSupport',
      sp.SendSupportRequest.fromPartial({ ...caller(res), conversationId, ...message }),
      ctx(req),
    );
    res.status(201).json(sentJson(out));
  };

  r.post('/support/conversations/:id/messages', auth.requireAdmin, async (req, res) => {
    const b = parseBody(supportSchemas.supportMessage, req.body);
    const conversationId = idParam(req.params.id);
    await sendAsSupport(req, res, conversationId, { text: b.text ?? '', internal: b.internal ?? false });
  });

  r.post('/support/conversations/:id/attachments', auth.requireAdmin, attachmentLimit, async (req, res) => {
    const conversationId = idParam(req.params.id);
    await sendAsSupport(req, res, conversationId, await attachmentForm(req));
  });
  r.use('/support/conversations/:id/attachments', uploadBounds);

  r.post('/support/conversations/:id/deposit-address', auth.requireAdmin, async (req, res) => {
    const b = parseBody(supportSchemas.depositAddress, req.body);
    const conversationId = idParam(req.params.id);
    await claimFor(res, conversationId);
    const out = await callUnary(
      support,
      'sendDepositAddress',
      sp.SendDepositAddressRequest.fromPartial({
        ...caller(res),
        conversationId,
        addressId: parseTokenParam(b.addressId, SUPPORT_ROUTE_MESSAGES.invalidAddressId),
      }),
      ctx(req),
    );
    res.status(201).json(sentJson(out));
  });

  r.post('/support/conversations/:id/assign', auth.requireAdmin, async (req, res) => {
    const b = parseBody(supportSchemas.assign, req.body);
    const assigneeId =
      b.assigneeId === undefined || b.assigneeId === 'me' ? sessionOf(res).caller.userId : b.assigneeId;
    const out = await callUnary(
      support,
      'assignConversation',
      sp.AssignRequest.fromPartial({ ...caller(res), conversationId: idParam(req.params.id), assigneeId }),
      ctx(req),
    );
    res.json({ conversation: conversationJson(out) });
  });

  const decision = (method: 'closeConversation' | 'reopenConversation' | 'blockVisitor') =>
    async function decide(req: Request, res: Response) {
      const out = await callUnary(support, method, conversationRequest(req, res), ctx(req));
      res.json({ conversation: conversationJson(out) });
    };
  r.post('/support/conversations/:id/close', auth.requireAdmin, decision('closeConversation'));
  r.post('/support/conversations/:id/reopen', auth.requireAdmin, decision('reopenConversation'));
  r.post('/support/conversations/:id/block', auth.requireAdmin, decision('blockVisitor'));

  // ---------------------------------------------------------------- the address book
  r.get('/admin/deposit-addresses', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      support,
      'listAddresses',
      sp.ListAddressesRequest.fromPartial(caller(res)),
      ctx(req),
    );
    res.json({ addresses: out.addresses.map(addressJson) });
  });

  r.post('/admin/deposit-addresses', auth.requireAdmin, async (req, res) => {
    const b = parseBody(supportSchemas.addAddress, req.body);
    const out = await callUnary(
      support,
      'addAddress',
      sp.AddAddressRequest.fromPartial({ ...caller(res), ...b }),
      ctx(req),
    );
    res.status(201).json({ address: addressJson(out) });
  });

  r.post('/admin/deposit-addresses/:id/retire', auth.requireAdmin, async (req, res) => {
    const out = await callUnary(
      support,
      'retireAddress',
      sp.RetireAddressRequest.fromPartial({
        ...caller(res),
        addressId: parseTokenParam(req.params.id, SUPPORT_ROUTE_MESSAGES.invalidAddressId),
      }),
      ctx(req),
    );
    res.json({ message: SUPPORT_ROUTE_MESSAGES.retired, address: addressJson(out) });
  });

  return r;
}

/**
 * The inbox's side panel for a conversation with an investor: their balances, KYC status and pending
 * deposits and withdrawals (each part null when its service cannot answer); a visitor has none.
 */
async function summaryOf(deps: SupportRouteDeps, req: Request, res: Response, c: sp.Conversation) {
  const userId = c.userId;
  const base = { conversationId: c.conversationId, userId: userId || null, name: c.name, email: c.email };
  if (!userId) return { ...base, balances: null, kycStatus: null, pending: null };
  const ctx = ctxOf(deps.config)(req);
  const s = sessionOf(res);
  const asAdmin = { caller: s.caller, callerRole: s.principal.role };
  const settle = async <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);
  const money = deps.money;
  const [balances, kyc, deposits, withdrawals] = await Promise.all([
    money
      ? settle(
          callUnary(
            money.ledger,
            'getBalances',
            lg.GetBalancesRequest.fromPartial({ ...asAdmin, userId }),
            ctx,
          ),
        )
      : null,
    settle(callUnary(deps.kyc, 'getStatus', kycPb.GetStatusRequest.fromPartial({ userId }), ctx)),
    money
      ? settle(
          callUnary(
            money.ledger,
            'listUserDeposits',
            lg.ListUserDepositsRequest.fromPartial({ ...asAdmin, userId }),
            ctx,
          ),
        )
      : null,
    money
      ? settle(
          callUnary(
            money.withdrawal,
            'listUserWithdrawals',
            wd.ListUserWithdrawalsRequest.fromPartial({ ...asAdmin, userId }),
            ctx,
          ),
        )
      : null,
  ]);
  return {
    ...base,
    balances: balances ? balancesJson(balances) : null,
    kycStatus: kyc?.kycStatus ?? null,
    pending: {
      deposits: deposits ? deposits.deposits.filter((d) => d.status === 'Pending').map(depositJson) : null,
      withdrawals: withdrawals
        ? withdrawals.withdrawals.filter((w) => w.status === 'Pending').map((w) => withdrawalJson(w))
        : null,
    },
  };
}
