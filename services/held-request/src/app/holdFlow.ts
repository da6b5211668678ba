/**
 * The synchronous money-request flow shared by the ledger's callers (docs/architecture.md §4): a request recorded
 * as awaiting its hold → ask the ledger for the hold with the request id as idempotency key → record
 * the outcome (RecordHoldPlaced / RecordHoldRefused) on the request's own stream.
 *
 * Idempotent (the ledger's key is the request id): the request path and the process manager may both
 * call it. An unknown outcome leaves the request awaiting. The caller supplies how to load and record
 * (its own stream, read model and event metadata); this module knows only the ledger side.
 */
import { DomainError, notFound, precondition, unavailable } from '@meridian/platform/eventSourcing/errors';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { Cents } from '@meridian/platform/money/money';
import type { RecordHoldPlaced, RecordHoldRefused } from '../domain/lifecycle.js';
import { ledgerRefusal, type HoldLedger } from './holdLedger.js';

/** What the flow reads of a request's read-model document. */
export interface HeldRequestDoc {
  status: string;
  userId: string;
  amountCents: Cents;
  hold: string;
}

export type HoldOutcomeCommand = RecordHoldPlaced | RecordHoldRefused;

export interface HeldRequestIo<D extends HeldRequestDoc> {
  ledger: HoldLedger;
  logger: Logger;
  clock: () => Date;
  /** The request id: hold id and idempotency key at the ledger. */
  requestId: string;
  purpose: 'investment' | 'withdrawal';
  /** Extra fields of the "outcome unknown" log line (e.g. `{ investmentId }`). */
  logFields: Record<string, unknown>;
  /** The request's current document (null when unknown). */
  load(): Promise<D | null>;
  /** The metadata the outcome is recorded with (taken once, before the ledger is asked). */
  meta(): EventMeta;
  /** Records the outcome on the request's stream; resolves to the projected document. */
  record(command: HoldOutcomeCommand, meta: EventMeta): Promise<D | null>;
}

/**
 * Asks the ledger to hold the amount of a request still awaiting its outcome and records the answer.
 * Returns the request's document as it stands afterwards.
 */
export async function placeHoldForRequest<D extends HeldRequestDoc>(io: HeldRequestIo<D>): Promise<D | null> {
  const { ledger, requestId } = io;
  const doc = await io.load();
  if (!doc || doc.hold !== 'awaiting') return doc;
  const meta = io.meta();
  try {
    await ledger.placeHold({
      userId: doc.userId,
      holdId: requestId,
      purpose: io.purpose,
      amountCents: doc.amountCents,
      idempotencyKey: requestId,
    });
  } catch (err) {
    const refusal = ledgerRefusal(err);
    if (!refusal) {
      io.logger.warn({ err, ...io.logFields }, 'ledger hold outcome unknown; left for the process manager');
      return doc;
    }
    const reason = refusal.message;
    try {
      return await io.record({ type: 'RecordHoldRefused', reason, now: io.clock() }, meta);
    } catch (recordErr) {
      // a concurrent driver recorded the hold as placed meanwhile
      if (recordErr instanceof DomainError && recordErr.kind === 'conflict') return io.load();
      throw recordErr;
    }
  }
  try {
    return await io.record({ type: 'RecordHoldPlaced', now: io.clock() }, meta);
  } catch (err) {
    if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
    // the refusal was recorded first (an earlier attempt was refused): never leak the hold
    await ledger.releaseHold({
      userId: doc.userId,
      holdId: requestId,
      idempotencyKey: `release:${requestId}`,
    });
    return io.load();
  }
}

/** The texts a request's answer uses (the service's own wording). */
export interface HeldRequestMessages {
  notFound: string;
  insufficientBalance: string;
  pendingOutcome: string;
}

/**
 * The answer of a money request once its hold was asked: the document when the hold is placed;
 * otherwise not_found, the refusal as a precondition (INSUFFICIENT_FUNDS for the balance refusal,
 * HOLD_REFUSED for any other), or unavailable while the outcome is still unknown.
 */
export function answerHeldRequest<D extends HeldRequestDoc & { refusal?: string | null }>(
  doc: D | null,
  messages: HeldRequestMessages,
): D {
  if (!doc) throw notFound(messages.notFound);
  if (doc.hold === 'refused') {
    const refusal = doc.refusal ?? messages.insufficientBalance;
    throw precondition(
      refusal,
      refusal === messages.insufficientBalance ? 'INSUFFICIENT_FUNDS' : 'HOLD_REFUSED',
    );
  }
  if (doc.hold === 'awaiting') throw unavailable(messages.pendingOutcome);
  return doc;
}
