/**
 * What the support chat's routes (supportRoutes.ts, supportAdminRoutes.ts) share: their refusal messages,
 * body schemas, the attachment form, support's hours and canned replies, and the JSON views of the support
 * service's answers (also pushed live: live/supportPushes.ts).
 */
import type { Request } from 'express';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { z } from 'zod';
import * as sp from '@meridian/proto/meridian/support/v1/support';
import type { SupportMessage } from '@meridian/proto/meridian/support/v1/events';
import { HttpError } from './errors.js';
import { readMultipart } from './fileUpload.js';
import { optionalString, requiredString } from './validation.js';
import { INVALID_EMAIL } from './refusals.js';

export const SUPPORT_VISITOR_COOKIE = 'meridian_support_visitor';
export const VISITOR_COOKIE_MAX_AGE_MS = 180 * 24 * 60 * 60_000;

export const SUPPORT_ROUTE_MESSAGES = {
  invalidId: 'Invalid conversation id',
  invalidAddressId: 'Invalid address id',
  noVisitor: 'Start a conversation first',
  textType: 'text must be a string',
  filters: 'status must be open or closed; assigned must be me, none or any',
  retired: 'Address retired',
  name: 'Please enter your name',
  noText: 'Please write a message',
  longText: 'A message must be at most 2,000 characters',
  badLink: 'This conversation link is not valid',
  chooseAddress: 'Please choose a deposit address',
  chooseNetwork: 'Please choose a network',
  label: 'Please enter a label',
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
export async function attachmentForm(req: Request) {
  const form = await readMultipart(req, ATTACHMENT_UPLOAD);
  if (!form.file) throw new HttpError(400, SUPPORT_ATTACHMENT_MESSAGES.noFile);
  return {
    attachment: sp.AttachmentUpload.fromPartial(form.file),
    text: form.fields.text ?? '',
    internal: form.fields.internal === 'true',
  };
}

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
    name: requiredString(SUPPORT_ROUTE_MESSAGES.name, 200),
    email: requiredString(INVALID_EMAIL, 254),
    text: optionalString(20_000),
  }),
  visitorResume: z.object({ token: requiredString(SUPPORT_ROUTE_MESSAGES.badLink, 600) }),
  depositAddress: z.object({ addressId: requiredString(SUPPORT_ROUTE_MESSAGES.chooseAddress, 100) }),
  assign: z.object({ assigneeId: optionalString(100) }),
  addAddress: z.object({
    network: requiredString(SUPPORT_ROUTE_MESSAGES.chooseNetwork, 20),
    label: requiredString(SUPPORT_ROUTE_MESSAGES.label, 200),
    address: requiredString('Enter the deposit address.', 200),
  }),
};

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

export const withMessagesJson = (c: sp.ConversationWithMessages) => ({
  conversation: c.conversation ? conversationJson(c.conversation) : null,
  messages: c.messages.map(supportMessageJson),
});

export const sentJson = (s: sp.SendResponse) => ({
  message: s.message ? supportMessageJson(s.message) : null,
  conversation: s.conversation ? conversationJson(s.conversation) : null,
});

export const addressJson = (a: sp.DepositAddress) => ({
  _id: a.addressId,
  network: a.network,
  label: a.label,
  address: a.address,
  status: a.status,
  createdAt: a.createdAt,
  createdBy: a.createdBy,
});

/** The support service's refusals of an attachment (services/support/src/domain/attachment.ts) and the gateway's. */
export const ATTACHMENT_REFUSALS = [
  SUPPORT_ATTACHMENT_MESSAGES.notMultipart,
  SUPPORT_ATTACHMENT_MESSAGES.noFile,
  'This file is not an image or a PDF (judged by its content): attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF',
  'The image could not be read: attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF',
  'The image is too small (W×H pixels): each side must be at least 32 pixels.',
  'The image is too large (W×H pixels): each side must be at most 12,000 pixels.',
  SUPPORT_ROUTE_MESSAGES.longText,
];
