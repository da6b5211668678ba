import { inTransaction } from '@meridian/platform/app/requestContext';
import { ConcurrencyError } from '@meridian/platform/eventSourcing/errors';
import type { EventMeta, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { Logger } from '@meridian/platform/logger';
import type { PersonalData } from '@meridian/platform/personalData';
import { countedWrite } from '@meridian/platform/ports/pendingCount';
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
  toInvestmentStreamId,
} from '../domain/investment.js';
import type { Plan } from '../domain/plan.js';
import { type InvestmentDoc, COLLECTIONS, investmentView } from '../projections/investmentView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'investment';
/** Consumer group of the investment service on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'investment';

export interface InvestmentContext {
  store: ServiceStore;
  ledger: LedgerPort;
  plans: readonly Plan[];
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  /** Opens the directory's names and emails (sealed with each owner's key) for answers. */
  personalData: PersonalData;
  /** Called after an approval or a maturity: the scheduler re-arms its timer. */
  onScheduleChanged?: () => void;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
  /** How many of a user's investments may be pending at once (default 5; INVESTMENT_MAX_PENDING). */
  maxPendingPerUser?: number;
}

// the caller (Actor), its powers, id syntax, event metadata, the retried transaction, MESSAGES and
// isUnknownOutcome: the held-request kit, shared with withdrawal
export * from '@meridian/held-request/app/kit';

/** The investment's stream and its read model (the command path's ProjectedStream). */
export const INVESTMENT_STREAM = { decider: investmentDecider, ...investmentView };

/** The state a command decides on, the version it appends at, and the document its events project onto. */
type Loaded = { version: number; state: InvestmentState; doc: InvestmentDoc | null; fromDoc: boolean };

/** The stream folded whole, and its document projected afresh from its events (no document, or one behind). */
async function foldStream(tx: StoreTx, investmentId: string): Promise<Loaded> {
  const { version, events } = await tx.readStream<InvestmentEvent>(toInvestmentStreamId(investmentId));
  let state = investmentDecider.initialState();
  let doc: InvestmentDoc | null = null;
  for (const e of events) {
    state = investmentDecider.evolve(state, { type: e.type, data: e.data } as InvestmentEvent);
    doc = investmentView.project(doc, e);
  }
  return { version, state, doc, fromDoc: false };
}

/** Whether the admin queue counts the document (its counter moves only when this changes). */
const queued = (doc: InvestmentDoc | null) =>
  doc !== null &&
  Object.entries(investmentView.counter.where).every(
    ([k, v]) => (doc as unknown as Record<string, unknown>)[k] === v,
  );

/**
 * read -> decide -> append -> project, in one transaction (retried on a concurrent append). The
 * command is built from the current state (so it can carry what it read).
 *
 * The state is the investment's document (O(1), whatever the stream's length): the read model
 * is the stream folded by the decider's own `evolve` (requestView's projection) plus a few fields of its
 * own (`version`, the stream version it is at, `sync`, `syncSince`, `listed`, `initiatedBy`), written in the
 * transaction that appends the events. So a command reads one document, decides, appends at the
 * document's version and puts the next document, where it read and folded the whole stream before. A
 * missing document (a new investment, a read model being rebuilt) is the stream folded; a document behind
 * its stream (the append's version check says so, or the decider refused on its state and the stream is
 * further on) is rebuilt from the stream the same way, once. `options.read`: the document as the caller
 * just read it (the batch pass's scan), saving the read; one behind is caught up the same way.
 */
export async function executeInvestment(
  ctx: InvestmentContext,
  investmentId: string,
  command: (state: InvestmentState) => InvestmentCommand,
  meta: EventMeta,
  options: { read?: InvestmentDoc } = {},
): Promise<{ events: InvestmentEvent[]; doc: InvestmentDoc | null }> {
  return inTransaction(ctx, async (tx) => {
    const stored = options.read ?? (await tx.get<InvestmentDoc>(COLLECTIONS.investments, investmentId));
    let loaded: Loaded = stored
      ? { version: stored.version, state: stored, doc: stored, fromDoc: true }
      : await foldStream(tx, investmentId);
    for (;;) {
      let decided: InvestmentEvent[];
      try {
        decided = investmentDecider.decide(command(loaded.state), loaded.state);
      } catch (err) {
        if (!loaded.fromDoc) throw err;
        // refused on the document's state: refused for sure only when the document is not behind
        const full = await foldStream(tx, investmentId);
        if (full.version === loaded.version) throw err;
        loaded = full;
        continue;
      }
      if (decided.length === 0) return { events: decided, doc: loaded.doc };
      let appended: StoredEvent<InvestmentEvent>[];
      try {
        ({ events: appended } = await tx.appendToStream<InvestmentEvent>(
          toInvestmentStreamId(investmentId),
          loaded.version,
          decided,
          meta,
        ));
      } catch (err) {
        if (!(err instanceof ConcurrencyError) || !loaded.fromDoc) throw err;
        // the document behind its stream: fold the stream whole, once; the same version is a concurrent
        // writer (the transaction runs again)
        const full = await foldStream(tx, investmentId);
        if (full.version === loaded.version) throw err;
        loaded = full;
        continue;
      }
      let next = loaded.doc;
      for (const e of appended) next = investmentView.project(next, e);
      const written = next;
      const put = async () => {
        if (written) await tx.put(COLLECTIONS.investments, investmentId, written);
        return written;
      };
      // the admin queue's counter, when the document enters or leaves the queue (or the document it was
      // read from is not the stored one)
      if (queued(stored) !== queued(written) || stored !== loaded.doc)
        await countedWrite(tx, investmentView.counter, investmentId, put);
      else await put();
      return { events: decided, doc: written };
    }
  });
}
