import { api } from '../../app/apiClient';
import { listFrom, messageFrom } from '../queues/lists';
import type {
  Conversation,
  ConversationView,
  DepositAddress,
  DepositAddressPart,
  InboxFilter,
  SupportConfig,
  SupportMessage,
} from './supportTypes';

const enc = encodeURIComponent;

/** The inbox's side panel: an investor's balances, KYC status and pending items (null: not readable now). */
export interface PersonSummary {
  userId: string | null;
  balances: { balance: number; investmentBalance: number; totalMaturityAmount: number } | null;
  kycStatus: string | null;
  pending: {
    deposits: Array<{ _id: string; transactionId?: string; amount: number }> | null;
    withdrawals: Array<{ _id: string; amount: number }> | null;
  } | null;
}

export interface CannedReply {
  id: string;
  title: string;
  text: string;
}
const MINE = 'support/conversations/mine';

type Raw<T> = T & { conversationId?: string; messageId?: string };

/** A conversation with its id as `_id` (the service names it conversationId). */
export function conversationOf(raw: unknown): Conversation | null {
  if (!raw || typeof raw !== 'object') return null;
  const c = raw as Raw<Conversation>;
  return { ...c, _id: c._id ?? c.conversationId ?? '' };
}

/** A message with its id as `_id` (the service names it messageId). */
export function messageOf(raw: unknown): SupportMessage | null {
  if (!raw || typeof raw !== 'object') return null;
  const m = raw as Raw<SupportMessage>;
  return { ...m, _id: m._id ?? m.messageId ?? '' };
}

function viewFrom(data: unknown): ConversationView {
  const d = (data ?? {}) as { conversation?: unknown; messages?: unknown };
  return {
    conversation: conversationOf(d.conversation),
    messages: listFrom<unknown>(d.messages)
      .map(messageOf)
      .filter((m): m is SupportMessage => m !== null),
  };
}

/** The multipart body of a message with a file. */
function fileForm(file: File, text: string): FormData {
  const form = new FormData();
  if (text) form.set('text', text);
  form.set('file', file, file.name);
  return form;
}

const sentMessage = (data: unknown) => messageOf((data as { message?: unknown } | null)?.message);
const conversationIn = (data: unknown) =>
  conversationOf((data as { conversation?: unknown } | null)?.conversation);

/** The query of each inbox filter (GET api/support/conversations?status=&assigned=). */
export const INBOX_QUERY: Record<InboxFilter, string> = {
  unassigned: 'status=open&assigned=none',
  mine: 'status=open&assigned=me',
  all: 'status=open&assigned=any',
  closed: 'status=closed&assigned=any',
};

/** Every call of the support chat, for investors, visitors and admins. */
export const supportApi = {
  /** GET api/support/config (public) -> SupportConfig. */
  async config(): Promise<SupportConfig> {
    return ((await api.get('support/config')).data ?? {}) as SupportConfig;
  },

  // --- the investor (or a visitor once started) ---
  /** GET api/support/conversations/mine -> { conversation, messages } (conversation null before the first message). */
  async mine(): Promise<ConversationView> {
    return viewFrom((await api.get(MINE)).data);
  },
  /** POST api/support/conversations/mine/messages { text } -> { message } (opens the conversation on the first). */
  async send(text: string): Promise<SupportMessage | null> {
    return sentMessage((await api.post(`${MINE}/messages`, { text })).data);
  },
  /**
   * POST api/support/conversations/mine/attachments, multipart { file, text } -> { message }: a screenshot or
   * PDF (the server judges its content; 400 with its reason, 413 over 10 MB).
   */
  async sendFile(file: File, text: string): Promise<SupportMessage | null> {
    return sentMessage((await api.post(`${MINE}/attachments`, fileForm(file, text))).data);
  },
  /**
   * POST api/support/conversations/visitor { name, email, text } -> { conversation, messages }: a visitor who
   * is not signed in starts a conversation with its first message. The gateway keeps the visitor's access
   * token in an httpOnly cookie, so the `mine` calls then answer the visitor's conversation.
   */
  async startAsVisitor(input: { name: string; email: string; text: string }): Promise<ConversationView> {
    return viewFrom((await api.post('support/conversations/visitor', input)).data);
  },

  /** The deposit addresses support gave the investor in their conversation, newest first (one per address). */
  async givenAddresses(): Promise<DepositAddressPart[]> {
    const { messages } = await supportApi.mine();
    const seen = new Map<string, DepositAddressPart>();
    for (const m of [...messages].reverse())
      if (m.depositAddress && !m.internal && !seen.has(m.depositAddress.addressId))
        seen.set(m.depositAddress.addressId, m.depositAddress);
    return [...seen.values()];
  },

  // --- support admins ---
  /** GET api/support/conversations?status=&assigned=&q= -> { conversations } (q: name or email). */
  async inbox(filter: InboxFilter, q = ''): Promise<Conversation[]> {
    const search = q.trim() ? `&q=${enc(q.trim())}` : '';
    return listFrom<unknown>(
      (await api.get(`support/conversations?${INBOX_QUERY[filter]}${search}`)).data,
      'conversations',
    )
      .map(conversationOf)
      .filter((c): c is Conversation => c !== null);
  },
  /** POST api/support/conversations/visitor/resume { token } (the emailed link's): this browser's visitor cookie. */
  async resumeAsVisitor(token: string): Promise<ConversationView> {
    return viewFrom((await api.post('support/conversations/visitor/resume', { token })).data);
  },
  /** GET api/support/conversations/{id}/summary -> PersonSummary. */
  async summary(id: string): Promise<PersonSummary> {
    return (await api.get(`support/conversations/${enc(id)}/summary`)).data as PersonSummary;
  },
  /** GET api/support/canned-replies -> { replies }. */
  async cannedReplies(): Promise<CannedReply[]> {
    return listFrom<CannedReply>((await api.get('support/canned-replies')).data, 'replies');
  },
  /** GET api/support/unread -> { count }: open conversations waiting for support's answer. */
  async unreadCount(): Promise<number> {
    const count = ((await api.get('support/unread')).data as { count?: unknown } | null)?.count;
    return typeof count === 'number' ? count : 0;
  },
  /** GET api/support/conversations/{id} -> { conversation, messages } (internal notes included). */
  async conversation(id: string): Promise<ConversationView> {
    return viewFrom((await api.get(`support/conversations/${enc(id)}`)).data);
  },
  /**
   * POST api/support/conversations/{id}/messages { text, internal } -> { message, conversation }. A reply claims
   * a conversation nobody holds (409 naming the admin who holds it).
   */
  async reply(
    id: string,
    text: string,
    internal: boolean,
  ): Promise<{ message: SupportMessage | null; conversation: Conversation | null }> {
    const body = internal ? { text, internal } : { text };
    const data = (await api.post(`support/conversations/${enc(id)}/messages`, body)).data;
    return { message: sentMessage(data), conversation: conversationIn(data) };
  },
  /** POST api/support/conversations/{id}/attachments, multipart { file, text, internal? } -> as reply. */
  async replyWithFile(
    id: string,
    file: File,
    text: string,
    internal: boolean,
  ): Promise<{ message: SupportMessage | null; conversation: Conversation | null }> {
    const form = fileForm(file, text);
    if (internal) form.set('internal', 'true');
    const data = (await api.post(`support/conversations/${enc(id)}/attachments`, form)).data;
    return { message: sentMessage(data), conversation: conversationIn(data) };
  },
  /** POST api/support/conversations/{id}/deposit-address { addressId } -> { message }. */
  async sendDepositAddress(id: string, addressId: string): Promise<SupportMessage | null> {
    return sentMessage(
      (await api.post(`support/conversations/${enc(id)}/deposit-address`, { addressId })).data,
    );
  },
  /** POST api/support/conversations/{id}/assign { assigneeId } ('' unassigns) -> { conversation }. */
  async assign(id: string, assigneeId: string): Promise<Conversation | null> {
    return conversationIn((await api.post(`support/conversations/${enc(id)}/assign`, { assigneeId })).data);
  },
  /** POST api/support/conversations/{id}/close | reopen | block -> { conversation } (block: a visitor). */
  async decide(id: string, action: 'close' | 'reopen' | 'block'): Promise<Conversation | null> {
    return conversationIn((await api.post(`support/conversations/${enc(id)}/${action}`)).data);
  },

  // --- the address book (admins) ---
  /** GET api/admin/deposit-addresses -> { addresses } (active and retired). */
  async addresses(): Promise<DepositAddress[]> {
    return listFrom<Raw<DepositAddress> & { addressId?: string }>(
      (await api.get('admin/deposit-addresses')).data,
      'addresses',
    ).map((a) => ({ ...a, _id: a._id ?? a.addressId ?? '' }));
  },
  /** POST api/admin/deposit-addresses { network, label, address } -> { address } (400 with the check's message). */
  async addAddress(input: {
    network: string;
    label: string;
    address: string;
  }): Promise<DepositAddress | null> {
    const data = (await api.post('admin/deposit-addresses', input)).data as {
      address?: DepositAddress;
    } | null;
    return data?.address ?? null;
  },
  /** POST api/admin/deposit-addresses/{id}/retire -> { message }: no longer offered to investors. */
  async retireAddress(id: string): Promise<string> {
    return messageFrom((await api.post(`admin/deposit-addresses/${enc(id)}/retire`)).data);
  },
};
