/**
 * The support chat's admin paths (support/conversations/{id}…, the deposit address book under
 * admin/deposit-addresses), declared in the route table (routeTable.ts); supportRoutes.ts gathers them with
 * the investors' and visitors' and builds the router.
 */
import type { Request, Response } from 'express';
import { UserPageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as kycPb from '@meridian/proto/meridian/kyc/v1/kyc';
import { callUnary } from '../grpcClients.js';
import { supportAnswers, supportConversationViewAnswer, supportSentAnswer } from './answers.js';
import { sessionOf } from './auth.js';
import { HttpError } from './errors.js';
import { ctxOf } from './grpcContext.js';
import { balancesJson, depositJson, withdrawalJson } from './moneyViews.js';
import { TOO_MANY_REQUESTS, mustBeString } from './refusals.js';
import { TAGS, json, route, type Route, type RequestCall } from './routeTable.js';
import { CLAIM_REFUSALS } from './routeDocs.js';
import { parseTokenParam } from './validation.js';
import {
  ATTACHMENT_REFUSALS,
  DEFAULT_CANNED_REPLIES,
  SUPPORT_ATTACHMENT_MESSAGES,
  SUPPORT_ROUTE_MESSAGES,
  addressJson,
  attachmentForm,
  conversationJson,
  sentJson,
  supportSchemas,
  withMessagesJson,
} from './supportViews.js';
import type { SupportContext, SupportRouteDeps } from './supportContext.js';

/** Support writes in the conversation: a note changes nothing the person sees and needs no claim; a reply claims it. */
const sendAsSupport = async (
  { support, caller, claimFor }: SupportContext,
  call: RequestCall,
  res: Response,
  conversationId: string,
  message: { text?: string; internal?: boolean; attachment?: sp.SendSupportRequest['attachment'] },
) => {
  if (!message.internal) await claimFor(res, conversationId);
  const out = await call(
    support,
    'sendSupport',
    sp.SendSupportRequest.fromPartial({ ...caller(res), conversationId, ...message }),
  );
  res.status(201).json(sentJson(out));
};

/** The conversation of the path (`:id`). */
const conversationParam = (p: Request['params']) => ({
  conversationId: parseTokenParam(p.id, SUPPORT_ROUTE_MESSAGES.invalidId),
});

/** What a conversation's decisions (close, reopen, block) refuse. */
const CONVERSATION_REFUSALS = {
  400: [SUPPORT_ROUTE_MESSAGES.invalidId],
  404: ['Conversation not found'],
};

const CLOSED_REFUSAL = 'This conversation is closed: reopen it to reply';

const CONVERSATION_DECISIONS = [
  ['close', 'Close the conversation', 'closeConversation'],
  ['reopen', 'Reopen the conversation', 'reopenConversation'],
  ['block', 'Block the visitor of the conversation (they can no longer write)', 'blockVisitor'],
] as const;

export const SUPPORT_ADMIN_ROUTES: Route<SupportContext>[] = [
  route({
    method: 'get',
    path: '/api/support/conversations',
    tag: TAGS.support,
    summary: 'The support inbox, newest activity first',
    query: {
      status: '`open`, `closed` (absent: both).',
      assigned: '`me`, `none` or `any` (default).',
      q: 'Name or email contains (case-insensitive).',
    },
    access: 'admin',
    ok: json(supportAnswers.conversations, 'The conversations.'),
    errors: { 400: [SUPPORT_ROUTE_MESSAGES.filters] },
    handler: async ({ support, caller }, { call }, req, res) => {
      const status = typeof req.query.status === 'string' ? req.query.status : '';
      const assigned = typeof req.query.assigned === 'string' ? req.query.assigned : 'any';
      if (!['', 'open', 'closed'].includes(status) || !['me', 'none', 'any'].includes(assigned))
        throw new HttpError(400, SUPPORT_ROUTE_MESSAGES.filters);
      const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 200) : '';
      const out = await call(
        support,
        'listConversations',
        sp.ListConversationsRequest.fromPartial({ ...caller(res), status, assigned, q }),
      );
      res.json({ conversations: out.conversations.map(conversationJson) });
    },
  }),
  route({
    method: 'get',
    path: '/api/support/unread',
    tag: TAGS.support,
    summary: 'Open conversations waiting for support’s answer (the dashboard tile)',
    access: 'admin',
    ok: json(supportAnswers.unread, 'The count.'),
    // the answer's schema keeps the count
    handler: ({ support, caller }, { call }, _req, res) =>
      call(support, 'countUnread', sp.CountUnreadRequest.fromPartial(caller(res))),
  }),
  {
    method: 'get',
    path: '/api/support/canned-replies',
    tag: TAGS.support,
    summary: 'Canned replies admins pick from',
    access: 'admin',
    local: true,
    ok: json(supportAnswers.cannedReplies, 'The replies.'),
    handler:
      ({ deps }) =>
      (_req, res) => {
        res.json({ replies: deps.cannedReplies ?? DEFAULT_CANNED_REPLIES });
      },
  },
  route({
    method: 'get',
    path: '/api/support/conversations/:id',
    tag: TAGS.support,
    summary: 'One conversation and all its messages (internal notes included)',
    access: 'admin',
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: CONVERSATION_REFUSALS,
    params: conversationParam,
    handler: async ({ support, caller }, { params, call }, _req, res) => {
      const out = await call(
        support,
        'getConversation',
        sp.ConversationRequest.fromPartial({ ...caller(res), ...params }),
      );
      res.json(withMessagesJson(out));
    },
  }),
  route({
    method: 'get',
    path: '/api/support/conversations/:id/summary',
    tag: TAGS.support,
    summary: 'The inbox side panel: the investor’s balances, KYC status and pending items',
    description: 'Each part is null when its service cannot answer; a visitor has none.',
    access: 'admin',
    ok: json(supportAnswers.summary, 'The summary.'),
    errors: CONVERSATION_REFUSALS,
    params: conversationParam,
    handler: async ({ deps, support, caller }, { params, call }, req, res) => {
      const out = await call(
        support,
        'getConversation',
        sp.ConversationRequest.fromPartial({ ...caller(res), ...params }),
      );
      res.json(await summaryOf(deps, req, res, out.conversation!));
    },
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/:id/messages',
    tag: TAGS.support,
    summary: 'Reply, or write an internal note (`internal: true`) the person never sees',
    description:
      'A reply claims a conversation nobody holds (review claims, kind `support`); one another admin holds is refused. A reply to someone not connected is emailed, once per burst.',
    access: 'admin',
    body: supportSchemas.supportMessage,
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: [
        SUPPORT_ROUTE_MESSAGES.invalidId,
        SUPPORT_ROUTE_MESSAGES.noText,
        SUPPORT_ROUTE_MESSAGES.longText,
        'internal must be true or false',
        ...mustBeString('text'),
      ],
      404: ['Conversation not found'],
      409: [CLOSED_REFUSAL, ...CLAIM_REFUSALS],
    },
    params: conversationParam,
    handler: (c, input, _req, res) =>
      sendAsSupport(c, input.call, res, input.params.conversationId, input.body),
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/:id/attachments',
    tag: TAGS.support,
    summary: 'Send a file to the person (or attach it to an internal note)',
    description:
      'multipart/form-data: `file` (as the investor’s: ≤ 10 MB, judged by its content), `text` (optional) and `internal` (`true` for a note the person never sees). A reply claims a conversation nobody holds, as a text reply.',
    access: 'admin',
    files: ['file'],
    formFields: {
      text: 'The message beside the file (optional).',
      internal: '`true`: an internal note (admins only).',
    },
    rateLimit: 'supportAttachment',
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: [SUPPORT_ROUTE_MESSAGES.invalidId, ...ATTACHMENT_REFUSALS],
      404: ['Conversation not found'],
      409: [CLOSED_REFUSAL, ...CLAIM_REFUSALS],
      413: [SUPPORT_ATTACHMENT_MESSAGES.tooLarge],
      429: [TOO_MANY_REQUESTS],
    },
    middleware: ({ attachmentLimit }) => [attachmentLimit],
    params: conversationParam,
    handler: async (c, input, req, res) =>
      sendAsSupport(c, input.call, res, input.params.conversationId, await attachmentForm(req)),
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/:id/deposit-address',
    tag: TAGS.support,
    summary: 'Send a deposit address of the address book (a structured support message)',
    description: 'Claims the conversation as a reply does. A retired address is refused.',
    access: 'admin',
    body: supportSchemas.depositAddress,
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: [
        SUPPORT_ROUTE_MESSAGES.invalidId,
        SUPPORT_ROUTE_MESSAGES.invalidAddressId,
        SUPPORT_ROUTE_MESSAGES.chooseAddress,
      ],
      404: ['Conversation not found', 'Deposit address not found'],
      409: [CLOSED_REFUSAL, 'This address is retired: choose an active one', ...CLAIM_REFUSALS],
    },
    params: conversationParam,
    handler: async ({ support, caller, claimFor }, { params, body, call }, _req, res) => {
      await claimFor(res, params.conversationId);
      const addressId = parseTokenParam(body.addressId, SUPPORT_ROUTE_MESSAGES.invalidAddressId);
      const out = await call(
        support,
        'sendDepositAddress',
        sp.SendDepositAddressRequest.fromPartial({ ...caller(res), ...params, addressId }),
      );
      res.status(201).json(sentJson(out));
    },
  }),
  route({
    method: 'post',
    path: '/api/support/conversations/:id/assign',
    tag: TAGS.support,
    summary: 'Assign the conversation to an admin (`me`, absent: the caller; empty: unassign)',
    access: 'admin',
    body: supportSchemas.assign,
    ok: json(supportAnswers.conversationOne, 'Assigned.'),
    errors: CONVERSATION_REFUSALS,
    params: conversationParam,
    handler: async ({ support, caller }, { params, body, call }, _req, res) => {
      const { assigneeId } = body;
      const assignee =
        assigneeId === undefined || assigneeId === 'me' ? sessionOf(res).caller.userId : assigneeId;
      const out = await call(
        support,
        'assignConversation',
        sp.AssignRequest.fromPartial({ ...caller(res), ...params, assigneeId: assignee }),
      );
      res.json({ conversation: conversationJson(out) });
    },
  }),
  ...CONVERSATION_DECISIONS.map(([action, summary, method]): Route<SupportContext> =>
    route({
      method: 'post',
      path: `/api/support/conversations/:id/${action}`,
      tag: TAGS.support,
      summary,
      access: 'admin',
      ok: json(supportAnswers.conversationOne, 'Done.'),
      errors: {
        ...CONVERSATION_REFUSALS,
        409: [
          'This conversation is already closed',
          'This conversation is already open',
          'Only a visitor can be blocked',
        ],
      },
      params: conversationParam,
      handler: async ({ support, caller }, { params, call }, _req, res) => {
        const out = await call(
          support,
          method,
          sp.ConversationRequest.fromPartial({ ...caller(res), ...params }),
        );
        res.json({ conversation: conversationJson(out) });
      },
    }),
  ),

  // ---------------------------------------------------------------- the address book
  route({
    method: 'get',
    path: '/api/admin/deposit-addresses',
    tag: TAGS.support,
    summary: 'The deposit address book, active first',
    access: 'admin',
    ok: json(supportAnswers.addresses, 'The addresses.'),
    handler: async ({ support, caller }, { call }, _req, res) => {
      const out = await call(support, 'listAddresses', sp.ListAddressesRequest.fromPartial(caller(res)));
      res.json({ addresses: out.addresses.map(addressJson) });
    },
  }),
  route({
    method: 'post',
    path: '/api/admin/deposit-addresses',
    tag: TAGS.support,
    summary: 'Add a deposit address (checked for its network’s format and checksum)',
    description: '`network`: bitcoin, ethereum, erc20 or tron.',
    access: 'admin',
    body: supportSchemas.addAddress,
    status: 201,
    ok: json(supportAnswers.addressAdded, 'Added.'),
    errors: {
      400: [
        SUPPORT_ROUTE_MESSAGES.chooseNetwork,
        SUPPORT_ROUTE_MESSAGES.label,
        'Enter the deposit address.',
        'The label must be at most 80 characters',
        '<the address check’s message>',
        ...mustBeString('network', 'label', 'address'),
      ],
    },
    handler: async ({ support, caller }, { body, call }, _req, res) => {
      const out = await call(
        support,
        'addAddress',
        sp.AddAddressRequest.fromPartial({ ...caller(res), ...body }),
      );
      res.status(201).json({ address: addressJson(out) });
    },
  }),
  route({
    method: 'post',
    path: '/api/admin/deposit-addresses/:id/retire',
    tag: TAGS.support,
    summary: 'Retire a deposit address: never sent again',
    access: 'admin',
    ok: json(supportAnswers.addressRetired, 'Retired.'),
    errors: {
      400: [SUPPORT_ROUTE_MESSAGES.invalidAddressId],
      404: ['Deposit address not found'],
      409: ['This address is already retired'],
    },
    params: (p) => ({ addressId: parseTokenParam(p.id, SUPPORT_ROUTE_MESSAGES.invalidAddressId) }),
    handler: async ({ support, caller }, { params, call }, _req, res) => {
      const out = await call(
        support,
        'retireAddress',
        sp.RetireAddressRequest.fromPartial({ ...caller(res), ...params }),
      );
      res.json({ message: SUPPORT_ROUTE_MESSAGES.retired, address: addressJson(out) });
    },
  }),
];

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
  /** The request of the user's whole lists (deposits, withdrawals), asked as the admin. */
  const userLists = UserPageRequest.fromPartial({ ...asAdmin, userId });
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
    money ? settle(callUnary(money.ledger, 'listUserDeposits', userLists, ctx)) : null,
    money ? settle(callUnary(money.withdrawal, 'listUserWithdrawals', userLists, ctx)) : null,
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
