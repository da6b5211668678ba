import { describe, expect, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import {
  MAX_TEXT_LENGTH,
  SUPPORT_MESSAGES,
  checkVisitorEmail,
  conversationDecider,
  normaliseText,
  type ConversationCommand,
  type ConversationEvent,
  type EmailReason,
  type MessageData,
  type Party,
} from './conversation.js';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { ATTACHMENT_MESSAGES, type AttachmentData } from './attachment.js';

const spec = DeciderSpecification.for(conversationDecider);
const t0 = new Date('2026-03-01T09:00:00.000Z');
const t1 = new Date('2026-03-01T09:05:00.000Z');

/** A reply email asked for on c1 (`reason`, `link`, at `now`), and the event recording it for `party`. */
function replyEmail(party: Party, reason: EmailReason, link: string, now: Date) {
  const command: ConversationCommand = { type: 'RequestReplyEmail', conversationId: 'c1', reason, link, now };
  const requested: ConversationEvent = {
    type: 'ReplyEmailRequested',
    data: {
      conversationId: 'c1',
      party,
      email: 'sealed-email',
      name: 'sealed-name',
      link,
      requestedAt: now.toISOString(),
      reason,
    },
  };
  return { command, requested };
}

const investorParty = { userId: 'u1', visitorId: '' };
const visitorParty = { userId: '', visitorId: 'visitor-1' };

const started = (party = investorParty): ConversationEvent => ({
  type: 'ConversationStarted',
  data: {
    conversationId: 'c1',
    party,
    name: 'sealed-name',
    email: 'sealed-email',
    tokenHash: party.visitorId ? 'hash' : '',
    startedAt: t0.toISOString(),
  },
});

const send = (
  over: Partial<Extract<ConversationCommand, { type: 'SendMessage' }>> = {},
): ConversationCommand => ({
  type: 'SendMessage',
  conversationId: 'c1',
  messageId: 'm1',
  from: 'investor',
  text: 'sealed-text',
  textLength: 5,
  internal: false,
  senderId: 'u1',
  senderRole: 'subscriber',
  now: t0,
  ...over,
});

const reply = (over: Partial<Extract<ConversationCommand, { type: 'SendMessage' }>> = {}) =>
  send({ messageId: 'm2', from: 'support', senderId: 'admin1', senderRole: 'admin', now: t1, ...over });

const message = (over: Partial<MessageData> = {}): MessageData => ({
  messageId: 'm1',
  conversationId: 'c1',
  from: 'investor',
  text: 'sealed-text',
  createdAt: t0.toISOString(),
  internal: false,
  authorId: '',
  depositAddress: null,
  ...over,
});
const sent = (over: Partial<MessageData> = {}, party = investorParty): ConversationEvent => ({
  type: 'MessageSent',
  data: { party, message: message(over) },
});
const replied = (over: Partial<MessageData> = {}): ConversationEvent =>
  sent({ messageId: 'm2', from: 'support', authorId: 'admin1', createdAt: t1.toISOString(), ...over });

const admin = { adminId: 'admin1', adminRole: 'admin', now: t1, conversationId: 'c1' };

describe('Conversation decider', () => {
  it("the investor's first message opens the conversation", () => {
    spec
      .given([])
      .when(
        send({
          opening: { party: investorParty, name: 'sealed-name', email: 'sealed-email', tokenHash: '' },
        }),
      )
      .then([started(), sent()]);
  });

  it('a message to a conversation that does not exist, without an opening, is not found', () => {
    spec.given([]).when(send()).thenThrows(domainError('not_found'), SUPPORT_MESSAGES.notFound);
    spec.given([]).when(reply()).thenThrows(domainError('not_found'), SUPPORT_MESSAGES.notFound);
  });

  it('refuses an empty message and one over 2,000 characters', () => {
    spec
      .given([started()])
      .when(send({ textLength: 0 }))
      .thenThrows(domainError('invalid'), SUPPORT_MESSAGES.emptyText);
    spec
      .given([started()])
      .when(send({ textLength: MAX_TEXT_LENGTH + 1 }))
      .thenThrows(domainError('invalid'), SUPPORT_MESSAGES.textTooLong);
    spec
      .given([started()])
      .when(send({ textLength: MAX_TEXT_LENGTH }))
      .then([sent()]);
  });

  it('a retried message (same id) decides nothing', () => {
    spec.given([started(), sent()]).when(send()).thenNothingHappens();
  });

  it('support replies; an internal note is marked internal', () => {
    spec.given([started(), sent()]).when(reply()).then([replied()]);
    spec
      .given([started(), sent()])
      .when(reply({ internal: true }))
      .then([replied({ internal: true })]);
  });

  it('only an admin writes as support, and only support writes internal notes', () => {
    spec
      .given([started()])
      .when(reply({ senderRole: 'subscriber' }))
      .thenThrows(domainError('forbidden'), SUPPORT_MESSAGES.notAdmin);
    spec
      .given([started()])
      .when(send({ internal: true }))
      .thenThrows(domainError('forbidden'), SUPPORT_MESSAGES.internalBySupport);
  });

  it('a deposit address travels on the message', () => {
    const depositAddress = { addressId: 'a1', network: 'tron', address: 'TXYZ', label: 'USDT' };
    spec
      .given([started()])
      .when(reply({ depositAddress }))
      .then([replied({ depositAddress })]);
  });

  describe('attachments', () => {
    const attachment: AttachmentData = {
      attachmentId: 'f1',
      name: 'sealed-name',
      kind: 'png',
      size: 1_234,
      ownerId: 'u1',
    };

    it('a file alone is a message: no text needed beside it, and it travels on the message', () => {
      spec
        .given([started()])
        .when(send({ textLength: 0, text: 'sealed-empty', attachment }))
        .then([sent({ text: 'sealed-empty', attachment })]);
      spec
        .given([started(), sent()])
        .when(reply({ attachment }))
        .then([replied({ attachment })]);
    });

    it('the text beside a file is still at most 2,000 characters', () => {
      spec
        .given([started()])
        .when(send({ textLength: MAX_TEXT_LENGTH + 1, attachment }))
        .thenThrows(domainError('invalid'), SUPPORT_MESSAGES.textTooLong);
    });

    it('refuses an empty file, one over 10 MB, an unknown kind, and a file beside a deposit address', () => {
      spec
        .given([started()])
        .when(send({ attachment: { ...attachment, size: 0 } }))
        .thenThrows(domainError('invalid'), ATTACHMENT_MESSAGES.empty);
      spec
        .given([started()])
        .when(send({ attachment: { ...attachment, size: MAX_UPLOAD_BYTES + 1 } }))
        .thenThrows(domainError('invalid'), ATTACHMENT_MESSAGES.tooLarge);
      spec
        .given([started()])
        .when(send({ attachment: { ...attachment, kind: 'html' as never } }))
        .thenThrows(domainError('invalid'), ATTACHMENT_MESSAGES.invalidFormat);
      spec
        .given([started()])
        .when(
          reply({
            attachment,
            depositAddress: { addressId: 'a1', network: 'tron', address: 'TXYZ', label: 'USDT' },
          }),
        )
        .thenThrows(domainError('invalid'), ATTACHMENT_MESSAGES.withAddress);
    });

    it('a file at exactly 10 MB is taken', () => {
      const big = { ...attachment, size: MAX_UPLOAD_BYTES };
      spec
        .given([started()])
        .when(send({ attachment: big }))
        .then([sent({ attachment: big })]);
    });
  });

  it('close, reopen; support cannot reply to a closed conversation; the person writing reopens it', () => {
    const closed: ConversationEvent = {
      type: 'ConversationClosed',
      data: { conversationId: 'c1', party: investorParty, closedBy: 'admin1', closedAt: t1.toISOString() },
    };
    spec
      .given([started()])
      .when({ type: 'CloseConversation', ...admin })
      .then([closed]);
    spec
      .given([started(), closed])
      .when({ type: 'CloseConversation', ...admin })
      .thenThrows(domainError('conflict'), SUPPORT_MESSAGES.alreadyClosed);
    spec
      .given([started(), closed])
      .when(reply())
      .thenThrows(domainError('conflict'), SUPPORT_MESSAGES.closed);
    spec
      .given([started(), closed])
      .when({ type: 'ReopenConversation', ...admin })
      .then([
        {
          type: 'ConversationReopened',
          data: {
            conversationId: 'c1',
            party: investorParty,
            reopenedBy: 'admin1',
            reopenedAt: t1.toISOString(),
          },
        },
      ]);
    spec
      .given([started(), closed])
      .when(send())
      .then([
        {
          type: 'ConversationReopened',
          data: {
            conversationId: 'c1',
            party: investorParty,
            reopenedBy: 'u1',
            reopenedAt: t0.toISOString(),
          },
        },
        sent(),
      ]);
  });

  it('assigns to an admin once; the same assignment again decides nothing', () => {
    const assigned: ConversationEvent = {
      type: 'ConversationAssigned',
      data: {
        conversationId: 'c1',
        party: investorParty,
        assigneeId: 'admin2',
        assignedBy: 'admin1',
        assignedAt: t1.toISOString(),
      },
    };
    spec
      .given([started()])
      .when({ type: 'AssignConversation', assigneeId: 'admin2', ...admin })
      .then([assigned]);
    spec
      .given([started(), assigned])
      .when({ type: 'AssignConversation', assigneeId: 'admin2', ...admin })
      .thenNothingHappens();
    spec
      .given([started()])
      .when({ type: 'AssignConversation', assigneeId: 'admin2', ...admin, adminRole: 'author' })
      .thenThrows(domainError('forbidden'));
  });

  it('a blocked visitor cannot write; only visitors are blocked', () => {
    const blocked: ConversationEvent = {
      type: 'VisitorBlocked',
      data: { conversationId: 'c1', party: visitorParty, blockedBy: 'admin1', blockedAt: t1.toISOString() },
    };
    spec
      .given([started(visitorParty)])
      .when({ type: 'BlockVisitor', ...admin })
      .then([blocked]);
    spec
      .given([started(visitorParty), blocked])
      .when(send({ senderId: 'visitor-1', senderRole: 'visitor' }))
      .thenThrows(domainError('forbidden'), SUPPORT_MESSAGES.blocked);
    spec
      .given([started()])
      .when({ type: 'BlockVisitor', ...admin })
      .thenThrows(domainError('conflict'), SUPPORT_MESSAGES.notVisitor);
  });

  it("a visitor's conversation joins the account once; later messages carry the investor", () => {
    const joined: ConversationEvent = {
      type: 'ConversationJoined',
      data: { conversationId: 'c1', visitorId: 'visitor-1', userId: 'u9', joinedAt: t1.toISOString() },
    };
    spec
      .given([started(visitorParty)])
      .when({ type: 'JoinAccount', conversationId: 'c1', userId: 'u9', now: t1 })
      .then([joined]);
    spec
      .given([started(visitorParty), joined])
      .when({ type: 'JoinAccount', conversationId: 'c1', userId: 'u9', now: t1 })
      .thenNothingHappens();
    spec
      .given([started(visitorParty), joined])
      .when(reply())
      .then([
        {
          type: 'MessageSent',
          data: {
            party: { userId: 'u9', visitorId: 'visitor-1' },
            message: message({
              messageId: 'm2',
              from: 'support',
              authorId: 'admin1',
              createdAt: t1.toISOString(),
            }),
          },
        },
      ]);
  });

  it('one reply email per burst: asked again only after the person wrote back', () => {
    const { command: requestEmail, requested: emailed } = replyEmail(investorParty, 'reply', '/x', t1);
    // nothing to tell before a reply; an internal note is not a reply
    spec.given([started(), sent()]).when(requestEmail).thenNothingHappens();
    spec
      .given([started(), sent(), replied({ internal: true })])
      .when(requestEmail)
      .thenNothingHappens();
    spec.given([started(), sent(), replied()]).when(requestEmail).then([emailed]);
    spec
      .given([started(), sent(), replied(), emailed, replied({ messageId: 'm3' })])
      .when(requestEmail)
      .thenNothingHappens();
    spec
      .given([started(), sent(), replied(), emailed, sent({ messageId: 'm4' }), replied({ messageId: 'm5' })])
      .when(requestEmail)
      .then([emailed]);
  });

  it('a visitor is emailed the link to the conversation they opened, once', () => {
    const { command: welcome, requested: welcomed } = replyEmail(
      visitorParty,
      'started',
      '/?support=token',
      t0,
    );
    spec
      .given([started(visitorParty)])
      .when(welcome)
      .then([welcomed]);
    spec
      .given([started(visitorParty), welcomed])
      .when(welcome)
      .thenNothingHappens();
    spec.given([started()]).when(welcome).thenNothingHappens();
  });

  it('erasure forgets the conversation', () => {
    spec
      .given([started(), sent()])
      .when({ type: 'EraseConversation', conversationId: 'c1', now: t1 })
      .then([
        {
          type: 'ConversationErased',
          data: { conversationId: 'c1', party: investorParty, erasedAt: t1.toISOString() },
        },
      ]);
    spec.given([]).when({ type: 'EraseConversation', conversationId: 'c1', now: t1 }).thenNothingHappens();
  });
});

describe('message text and the pre-chat form', () => {
  it('keeps plain text as written: trimmed, line breaks kept, control characters dropped, HTML untouched', () => {
    expect(normaliseText('  <b>hi</b>\r\nthere\u0007 ')).toBe('<b>hi</b>\nthere');
    expect(normaliseText(42)).toBe('');
  });

  it('canonicalises the email and refuses a malformed one', () => {
    expect(checkVisitorEmail(' Ada@Example.COM ')).toBe('ada@example.com');
    expect(() => checkVisitorEmail('not-an-email')).toThrow(SUPPORT_MESSAGES.emailRequired);
  });
});
