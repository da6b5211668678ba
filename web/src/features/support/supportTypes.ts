/**
 * The support chat's records as the gateway answers them (api/support/*, api/admin/deposit-addresses) and
 * the names of its pushes. Every call is in supportApi.ts.
 */

/** The longest message the composer accepts (the server refuses a longer one). */
export const MAX_MESSAGE_LENGTH = 2000;

/** The socket.io pushes of the chat (web/src/features/live/README.md). */
export const SUPPORT_EVENTS = {
  /** `{ message, conversation? }`: to the conversation's investor and to support admins. */
  message: 'support/message',
  /** `{ conversationId, from, typing }`: support is typing in the conversation (or stopped). */
  typing: 'support/typing',
  /** `{ conversation }`: a conversation was assigned, closed or reopened (admins). */
  conversation: 'support/conversation',
} as const;

export type MessageFrom = 'investor' | 'support' | 'system';

/** The structured part of a "Send deposit address" message. */
export interface DepositAddressPart {
  network: string;
  address: string;
  addressId: string;
  /** The address book's label, e.g. "USDT (ERC-20)": names the token of an ERC-20 or TRON address. */
  label?: string;
}

/** The largest file a message may carry (the server refuses a larger one: 413). */
export const MAX_ATTACHMENT_BYTES = 10_485_760;
/** What the file picker offers: screenshots and PDFs (the server judges the content, not this). */
export const ATTACHMENT_ACCEPT =
  'image/jpeg,image/png,image/gif,image/webp,image/bmp,image/heic,.heic,application/pdf';

/** A file sent with a message, served at `url` to the conversation's person and admins. */
export interface AttachmentPart {
  _id: string;
  /** Made safe by the server; only ever shown as text. */
  name: string;
  kind: 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'heic' | 'pdf';
  size: number;
  url: string;
}

export interface SupportMessage {
  _id: string;
  conversationId: string;
  from: MessageFrom;
  text: string;
  createdAt: string;
  /** An internal note between admins; never sent to the investor. */
  internal?: boolean;
  /** The admin who wrote a support message or note ('' or absent for the person's own). */
  authorId?: string;
  depositAddress?: DepositAddressPart | null;
  attachment?: AttachmentPart | null;
}

export interface Conversation {
  _id: string;
  status: 'open' | 'closed';
  /** The investor's account, once they have one (a visitor's conversation joins it when they sign in). */
  userId?: string | null;
  name?: string;
  email?: string;
  /** The admin holding the conversation; '' or absent when unassigned. */
  assigneeId?: string;
  startedAt?: string;
  lastMessageAt?: string;
  /** The last message's text, internal notes left out (inbox preview). */
  lastMessageText?: string;
  /** The person's messages since support last answered (admins' lists). */
  unread?: number;
  /** A visitor an admin blocked. */
  blocked?: boolean;
}

export interface ConversationView {
  conversation: Conversation | null;
  messages: SupportMessage[];
}

/** One address of the admins' address book. */
export interface DepositAddress {
  _id: string;
  network: string;
  label: string;
  address: string;
  status: 'active' | 'retired';
  createdAt?: string;
}

/** GET api/support/config (public): what the launcher needs before it shows. */
export interface SupportConfig {
  /** A third-party widget's script (LIVE_CHAT_SCRIPT_URL): public pages load it instead of the launcher. */
  liveChatScriptUrl?: string | null;
  /** Whether support is within its business hours now. */
  online?: boolean;
  /** When support is next available (ISO date-time), while outside business hours. */
  nextAvailableAt?: string | null;
}

export type InboxFilter = 'unassigned' | 'mine' | 'all' | 'closed';

/**
 * The networks the address book accepts (the support service's DEPOSIT_NETWORKS and labels), with the asset a
 * deposit to each must be when the address's label does not name one.
 */
export const NETWORKS: ReadonlyArray<{ value: string; label: string; asset: string; chain: string }> = [
  { value: 'bitcoin', label: 'Bitcoin (BTC)', asset: 'BTC', chain: 'Bitcoin' },
  { value: 'ethereum', label: 'Ethereum (ETH)', asset: 'ETH', chain: 'Ethereum' },
  {
    value: 'erc20',
    label: 'Ethereum ERC-20 token',
    asset: 'the ERC-20 token agreed with support',
    chain: 'Ethereum (ERC-20)',
  },
  {
    value: 'tron',
    label: 'TRON (TRX / TRC-20)',
    asset: 'TRX or the TRC-20 token agreed with support',
    chain: 'TRON',
  },
];

/** A network's label, asset and chain; an unknown value is shown as it is. */
export function networkOf(value: string): { label: string; asset: string; chain: string } {
  return NETWORKS.find((n) => n.value === value) ?? { label: value, asset: value, chain: value };
}
