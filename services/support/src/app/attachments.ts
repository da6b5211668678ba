/**
 * Attachments of support messages: a file sent with a message is checked by its content
 * (domain/attachment.ts), stored in the service's private file store sealed with the conversation
 * owner's personal-data key (the platform's sealedFileStore: files under DATA_DIR/support-attachments,
 * or GridFS bucket `supportAttachments` of meridian_support), and removed again when the message is
 * refused: a refused message leaves nothing stored. Served to the conversation's investor (or visitor)
 * and to admins only: anyone else, an internal note's file for the person, or a shredded owner is
 * NOT_FOUND.
 */
import { Readable } from 'node:stream';
import { notFound } from '@meridian/platform/eventSourcing/errors';
import { CONTENT_TYPES, type FileKind } from '@meridian/platform/files/fileKind';
import { IMAGE_HEADER_BYTES, imageDimensionsOf } from '@meridian/platform/files/imageDimensions';
import {
  ATTACHMENT_MESSAGES,
  type AttachmentData,
  attachmentName,
  checkAttachmentFile,
} from '../domain/attachment.js';
import { COLLECTIONS, type ConversationDoc, type MessageDoc } from '../projections/supportViews.js';
import type { SupportContext } from './context.js';

/** Where the service keeps attachments (a folder of DATA_DIR, or a GridFS bucket). */
export const ATTACHMENT_STORE = {
  folder: 'support-attachments',
  database: 'meridian_support',
  bucketName: 'supportAttachments',
} as const;

/** A file as the gateway read it from the request. */
export interface AttachmentUpload {
  content: Uint8Array;
  fileName: string;
}

/** An attachment as answers show it (the owner stays inside the service). */
export interface AttachmentView {
  attachmentId: string;
  name: string;
  kind: FileKind;
  size: number;
}

export const attachmentView = (a: AttachmentData): AttachmentView => ({
  attachmentId: a.attachmentId,
  name: a.name,
  kind: a.kind,
  size: a.size,
});

/**
 * Runs `send` with the upload checked and stored for `owner` (or with none when there is no upload);
 * when `send` throws or records nothing, the stored file is removed again.
 */
export async function withAttachment<T>(
  ctx: SupportContext,
  owner: string,
  upload: AttachmentUpload | undefined,
  send: (attachment?: AttachmentData) => Promise<{ result: T; recorded: boolean }>,
): Promise<T> {
  if (!upload) return (await send()).result;
  const content = Buffer.from(upload.content);
  const kind = checkAttachmentFile(content, imageDimensionsOf(content.subarray(0, IMAGE_HEADER_BYTES)));
  const attachmentId = ctx.newId();
  await ctx.attachments.save(
    { id: attachmentId, userId: owner, contentType: CONTENT_TYPES[kind] },
    Readable.from([content]),
  );
  const attachment: AttachmentData = {
    attachmentId,
    name: await ctx.personalData.seal(owner, attachmentName(upload.fileName, kind)),
    kind,
    size: content.length,
    ownerId: owner,
  };
  const discard = () =>
    ctx.attachments
      .delete(owner, attachmentId)
      .catch((err: unknown) => ctx.logger?.warn({ err }, 'could not remove a refused attachment'));
  try {
    const { result, recorded } = await send(attachment);
    if (!recorded) await discard();
    return result;
  } catch (err) {
    await discard();
    throw err;
  }
}

/** Who asks for an attachment: a signed-in caller, or a visitor's conversation (their token's). */
export type AttachmentReader =
  { kind: 'user'; userId: string; role: string } | { kind: 'visitor'; conversationId: string };

export interface AttachmentContent {
  attachment: AttachmentView;
  contentType: string;
  content: Buffer;
}

/** The attachment's bytes (opened), for the conversation's person and admins; NOT_FOUND for anyone else. */
export async function readAttachment(
  ctx: SupportContext,
  reader: AttachmentReader,
  attachmentId: string,
): Promise<AttachmentContent> {
  const missing = () => notFound(ATTACHMENT_MESSAGES.notFound, 'ATTACHMENT_NOT_FOUND');
  if (!attachmentId) throw missing();
  const [message] = await ctx.store.find<MessageDoc>(COLLECTIONS.messages, {
    where: { attachmentId },
    limit: 1,
  });
  const attachment = message?.attachment;
  if (!message || !attachment) throw missing();
  const conversation = await ctx.store.get<ConversationDoc>(
    COLLECTIONS.conversations,
    message.conversationId,
  );
  if (!conversation) throw missing();
  const isAdmin = reader.kind === 'user' && reader.role === 'admin';
  const isPerson =
    !message.internal &&
    (reader.kind === 'user'
      ? !!conversation.userId && conversation.userId === reader.userId
      : !conversation.userId && reader.conversationId === conversation.conversationId);
  if (!isAdmin && !isPerson) throw missing();
  const opened = await ctx.attachments.open(attachment.ownerId, attachment.attachmentId);
  if (!opened) throw missing();
  const parts: Buffer[] = [];
  for await (const chunk of opened.stream) parts.push(Buffer.from(chunk as Uint8Array));
  return {
    attachment: attachmentView(attachment),
    contentType: CONTENT_TYPES[attachment.kind],
    content: Buffer.concat(parts),
  };
}
