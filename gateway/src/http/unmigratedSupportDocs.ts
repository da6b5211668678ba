/**
 * The OpenAPI side of the support chat's routes, not yet declared in a route table (routeTable.ts):
 * openapi.ts merges them with the tables' routes. A route moves from here into its router module's table.
 */
import { supportAnswers, supportConversationViewAnswer, supportSentAnswer } from './answers.js';
import { SUPPORT_ATTACHMENT_MESSAGES, SUPPORT_ROUTE_MESSAGES, supportSchemas } from './supportRoutes.js';
import { NOT_LOGGED_IN, TOO_MANY_REQUESTS, mustBeString } from './refusals.js';
import { TAGS, json, type RouteDoc } from './routeTable.js';
import { CLAIM_REFUSALS } from './routeDocs.js';

/** The support service's refusals of an attachment (services/support/src/domain/attachment.ts) and the gateway's. */
const ATTACHMENT_REFUSALS = [
  SUPPORT_ATTACHMENT_MESSAGES.notMultipart,
  SUPPORT_ATTACHMENT_MESSAGES.noFile,
  'This file is not an image or a PDF (judged by its content): attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF',
  'The image could not be read: attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF',
  'The image is too small (W×H pixels): each side must be at least 32 pixels.',
  'The image is too large (W×H pixels): each side must be at most 12,000 pixels.',
  'A message must be at most 2,000 characters',
];

/** The support chat's routes, as the OpenAPI document states them. */
export const UNMIGRATED_SUPPORT_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/support/config',
    tag: TAGS.support,
    summary: 'What the chat launcher needs: a third-party widget, or when support is next available',
    access: 'public',
    local: true,
    ok: json(supportAnswers.config, 'The launcher configuration.'),
  },
  {
    method: 'get',
    path: '/api/support/conversations/mine',
    tag: TAGS.support,
    summary: 'The caller’s conversation and its messages',
    description:
      'A signed-in investor’s own conversation (null before their first message; a visitor conversation opened with their verified email joins it); without a session, the conversation of the visitor cookie. Internal notes are never included.',
    access: 'user',
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: { 401: [SUPPORT_ROUTE_MESSAGES.noVisitor, 'This conversation link is not valid'] },
  },
  {
    method: 'post',
    path: '/api/support/conversations/mine/messages',
    tag: TAGS.support,
    summary: 'Send a message to support (opens the conversation on the first)',
    description: 'Plain text, 1 to 2,000 characters. A visitor (cookie) is limited in messages per minute.',
    access: 'user',
    body: supportSchemas.message,
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: ['Please write a message', 'A message must be at most 2,000 characters', ...mustBeString('text')],
      401: [SUPPORT_ROUTE_MESSAGES.noVisitor, 'This conversation link is not valid'],
      403: [
        'This conversation is no longer available',
        'This conversation link is not valid',
        'Messages cannot be sent while impersonating a user',
      ],
      429: [TOO_MANY_REQUESTS],
    },
  },
  {
    method: 'post',
    path: '/api/support/conversations/mine/attachments',
    tag: TAGS.support,
    summary: 'Send a file (a screenshot or PDF of the transfer) to support, with an optional text',
    description:
      'multipart/form-data: `file` (one, ≤ 10 MB: jpeg, png, gif, webp, bmp, heic or pdf judged by its content, never by its name or declared type; an image 32 to 12,000 pixels a side) and `text` (0 to 2,000 characters). Kept private, sealed with the conversation owner’s personal-data key; a refused file leaves nothing stored. Opens the conversation on the first message, like a text. A visitor (cookie) is limited in messages per minute.',
    access: 'user',
    files: ['file'],
    formFields: { text: 'The message beside the file (optional).' },
    rateLimit: 'supportAttachment',
    status: 201,
    ok: json(supportSentAnswer, 'Sent.'),
    errors: {
      400: ATTACHMENT_REFUSALS,
      401: [SUPPORT_ROUTE_MESSAGES.noVisitor, 'This conversation link is not valid'],
      403: [
        'This conversation is no longer available',
        'This conversation link is not valid',
        'Messages cannot be sent while impersonating a user',
      ],
      413: [SUPPORT_ATTACHMENT_MESSAGES.tooLarge],
      429: [TOO_MANY_REQUESTS],
    },
  },
  {
    method: 'get',
    path: '/api/support/attachments/:attachmentId',
    tag: TAGS.support,
    summary: 'A file attached to a message',
    description:
      "To the conversation’s investor (or its visitor, by the cookie) and to admins; 404 for anyone else, and for a file whose owner was deleted (shredded). An internal note’s file is for admins only. Served as an attachment (`Content-Disposition: attachment`) under `Content-Security-Policy: sandbox; default-src 'none'`, with nosniff and no-store, as KYC documents.",
    access: 'user',
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
  },
  {
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
        'Please enter your name',
        'Please enter a valid email',
        'Your name must be at most 100 characters',
        'Please write a message',
        'A message must be at most 2,000 characters',
        ...mustBeString('name', 'email', 'text'),
      ],
    },
  },
  {
    method: 'post',
    path: '/api/support/conversations/visitor/resume',
    tag: TAGS.support,
    summary: 'Come back to a visitor conversation with the emailed link’s token (sets the visitor cookie)',
    access: 'public',
    body: supportSchemas.visitorResume,
    rateLimit: 'supportVisitorMessage',
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: { 400: ['This conversation link is not valid'], 401: ['This conversation link is not valid'] },
  },
  {
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
  },
  {
    method: 'get',
    path: '/api/support/unread',
    tag: TAGS.support,
    summary: 'Open conversations waiting for support’s answer (the dashboard tile)',
    access: 'admin',
    ok: json(supportAnswers.unread, 'The count.'),
  },
  {
    method: 'get',
    path: '/api/support/canned-replies',
    tag: TAGS.support,
    summary: 'Canned replies admins pick from',
    access: 'admin',
    local: true,
    ok: json(supportAnswers.cannedReplies, 'The replies.'),
  },
  {
    method: 'get',
    path: '/api/support/conversations/:id',
    tag: TAGS.support,
    summary: 'One conversation and all its messages (internal notes included)',
    access: 'admin',
    ok: json(supportConversationViewAnswer, 'The conversation.'),
    errors: { 400: [SUPPORT_ROUTE_MESSAGES.invalidId], 404: ['Conversation not found'] },
  },
  {
    method: 'get',
    path: '/api/support/conversations/:id/summary',
    tag: TAGS.support,
    summary: 'The inbox side panel: the investor’s balances, KYC status and pending items',
    description: 'Each part is null when its service cannot answer; a visitor has none.',
    access: 'admin',
    ok: json(supportAnswers.summary, 'The summary.'),
    errors: { 400: [SUPPORT_ROUTE_MESSAGES.invalidId], 404: ['Conversation not found'] },
  },
  {
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
        'Please write a message',
        'A message must be at most 2,000 characters',
        'internal must be true or false',
        ...mustBeString('text'),
      ],
      404: ['Conversation not found'],
      409: ['This conversation is closed: reopen it to reply', ...CLAIM_REFUSALS],
    },
  },
  {
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
      409: ['This conversation is closed: reopen it to reply', ...CLAIM_REFUSALS],
      413: [SUPPORT_ATTACHMENT_MESSAGES.tooLarge],
      429: [TOO_MANY_REQUESTS],
    },
  },
  {
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
        'Please choose a deposit address',
      ],
      404: ['Conversation not found', 'Deposit address not found'],
      409: [
        'This conversation is closed: reopen it to reply',
        'This address is retired: choose an active one',
        ...CLAIM_REFUSALS,
      ],
    },
  },
  {
    method: 'post',
    path: '/api/support/conversations/:id/assign',
    tag: TAGS.support,
    summary: 'Assign the conversation to an admin (`me`, absent: the caller; empty: unassign)',
    access: 'admin',
    body: supportSchemas.assign,
    ok: json(supportAnswers.conversationOne, 'Assigned.'),
    errors: { 400: [SUPPORT_ROUTE_MESSAGES.invalidId], 404: ['Conversation not found'] },
  },
  ...(['close', 'reopen', 'block'] as const).map((action): RouteDoc => ({
    method: 'post',
    path: `/api/support/conversations/:id/${action}`,
    tag: TAGS.support,
    summary:
      action === 'close'
        ? 'Close the conversation'
        : action === 'reopen'
          ? 'Reopen the conversation'
          : 'Block the visitor of the conversation (they can no longer write)',
    access: 'admin',
    ok: json(supportAnswers.conversationOne, 'Done.'),
    errors: {
      400: [SUPPORT_ROUTE_MESSAGES.invalidId],
      404: ['Conversation not found'],
      409: [
        'This conversation is already closed',
        'This conversation is already open',
        'Only a visitor can be blocked',
      ],
    },
  })),
  {
    method: 'get',
    path: '/api/admin/deposit-addresses',
    tag: TAGS.support,
    summary: 'The deposit address book, active first',
    access: 'admin',
    ok: json(supportAnswers.addresses, 'The addresses.'),
  },
  {
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
        'Please choose a network',
        'Please enter a label',
        'Enter the deposit address.',
        'The label must be at most 80 characters',
        '<the address check’s message>',
        ...mustBeString('network', 'label', 'address'),
      ],
    },
  },
  {
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
  },
];
