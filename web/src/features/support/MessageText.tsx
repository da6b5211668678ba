import type { ReactNode } from 'react';

/** http(s) URLs in a message; anything else (javascript:, data:) stays plain text. */
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation that ends a sentence rather than the URL ("see https://x.org/a.") */
const TRAILING = /[.,;:!?)\]]+$/;

/** The href of a link made from `candidate`, or null when it is not a well-formed http(s) URL. */
export function safeHref(candidate: string): string | null {
  try {
    const url = new URL(candidate);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A message's text as text: React escapes every character (HTML is never rendered), line breaks are kept
 * by CSS, and http(s) URLs become links that open in a new tab without referrer, opener or endorsement.
 */
export function MessageText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const raw = match[0].replace(TRAILING, '');
    const start = match.index;
    const href = safeHref(raw);
    if (!href) continue;
    if (start > last) parts.push(text.slice(last, start));
    parts.push(
      <a key={start} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {raw}
      </a>,
    );
    last = start + raw.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <span className="chat-text">{parts}</span>;
}
