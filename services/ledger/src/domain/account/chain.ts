/**
 * The hash chain of a user's ledger (docs/statements.md): every TransactionPosted of the stream
 * `ledger-<userId>` is a link, numbered from 1 in stream order, whose hash is the SHA-256 of its canonical
 * encoding (meridian-verify's `canonicalEntry`: seq, transactionId, postedAt, reason, memo, the postings and
 * the previous link's hash). Changing one cent of one posting changes its hash and breaks every later link.
 *
 * Links are stored on the events (`seq`, `prevHash`, `hash` of TransactionPosted) from the day the chain
 * exists. Events stored before it carry none: their links are computed the same way, in stream order, from
 * the previous link (the first from GENESIS), whenever they are read. So the chain of a stream is one
 * deterministic function of its events, whichever of them were stored with their links.
 */
import { sha256Hex } from '@meridian/platform/crypto';
import { type ChainedEntry, GENESIS_HASH, canonicalEntry } from 'meridian-verify';
import type { LedgerTransaction } from './accounts.js';

/** A link of the chain: the number of the user's transaction and its hash. */
export type ChainLink = { seq: number; hash: string };
/** What a TransactionPosted carries of the chain (absent on events stored before it existed). */
export type ChainFields = { seq: number; prevHash: string; hash: string };

export const GENESIS: ChainLink = Object.freeze({ seq: 0, hash: GENESIS_HASH });

type Posted = Pick<LedgerTransaction, 'transactionId' | 'postedAt' | 'reason' | 'memo' | 'entries'>;

/** The entry of the statement a transaction is, linked after `prev` (what its hash is over). */
export const chainedEntryOf = (tx: Posted, prev: ChainLink): ChainedEntry => ({
  seq: prev.seq + 1,
  transactionId: tx.transactionId,
  postedAt: tx.postedAt,
  reason: tx.reason,
  memo: tx.memo,
  postings: tx.entries.map(({ accountId, amountCents }) => ({ accountId, amountCents })),
  prevHash: prev.hash,
});

/** The link a transaction makes after `prev`: its seq, prevHash and hash, computed from its contents. */
export function linkOf(tx: Posted, prev: ChainLink): ChainFields {
  const entry = chainedEntryOf(tx, prev);
  return { seq: entry.seq, prevHash: entry.prevHash, hash: sha256Hex(canonicalEntry(entry)) };
}

/** The link a posted transaction is: the one stored on it, or (stored before the chain) the one computed. */
export function storedOrComputedLink(tx: Posted & Partial<ChainFields>, prev: ChainLink): ChainFields {
  if (typeof tx.hash === 'string' && typeof tx.seq === 'number' && typeof tx.prevHash === 'string')
    return { seq: tx.seq, prevHash: tx.prevHash, hash: tx.hash };
  return linkOf(tx, prev);
}

/**
 * The events of one decision with their links set: each TransactionPosted linked after the one before it,
 * the first after `from` (the stream's last link). Other events are returned as they are.
 */
export function withChainLinks<E extends { type: string; data: unknown }>(
  events: readonly E[],
  from: ChainLink,
): E[] {
  let prev = from;
  return events.map((event) => {
    if (event.type !== 'TransactionPosted') return event;
    const link = linkOf(event.data as Posted, prev);
    prev = { seq: link.seq, hash: link.hash };
    return { ...event, data: { ...(event.data as object), ...link } };
  });
}
