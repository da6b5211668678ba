import type { SupportMessage } from './supportTypes';

/**
 * What this browser remembers of the chat (localStorage). What the investor has seen of their conversation: the time of the newest message shown in the open panel,
 * kept in this browser (localStorage), so the launcher's badge counts only the replies after it.
 */
const KEY = 'meridian.support.seenAt';

function seenAt(): number {
  try {
    return Number(localStorage.getItem(KEY)) || 0;
  } catch {
    return 0;
  }
}

/** Replies (support or the system, never a note) newer than what the investor last saw. */
export function unreadOf(messages: SupportMessage[]): number {
  const since = seenAt();
  return messages.filter((m) => m.from !== 'investor' && !m.internal && Date.parse(m.createdAt) > since)
    .length;
}

/** The investor has seen every message up to the newest of `messages`. */
export function markSeen(messages: SupportMessage[]): void {
  const newest = Math.max(0, ...messages.map((m) => Date.parse(m.createdAt) || 0));
  if (newest <= seenAt()) return;
  try {
    localStorage.setItem(KEY, String(newest));
  } catch {
    // storage refused (private mode): the badge counts from the page load
  }
}

/**
 * Whether this browser started (or resumed) a visitor's conversation: the visitor cookie is httpOnly, so
 * without this a visitor's every page would ask the server and be told 401.
 */
const VISITOR_KEY = 'meridian.support.visitor';

export function isKnownVisitor(): boolean {
  try {
    return localStorage.getItem(VISITOR_KEY) === '1';
  } catch {
    return false;
  }
}

export function rememberVisitor(known: boolean): void {
  try {
    if (known) localStorage.setItem(VISITOR_KEY, '1');
    else localStorage.removeItem(VISITOR_KEY);
  } catch {
    // storage refused: the visitor's chat is asked for only while the page is open
  }
}
