/**
 * A small in-memory LedgerPort enforcing the ledger's hold rules (for app-level tests that need to
 * steer the ledger's answers): a hold needs the funds of its source account, the same key again is the
 * same hold, capture/release happen once and exclude each other, a settlement happens once per
 * investment and needs the principal in `invested`.
 */
import { conflict, notFound, precondition } from '@meridian/platform/eventSourcing/errors';
import type { LedgerPort } from '../app/ports.js';

type Hold = {
  userId: string;
  amountCents: number;
  purpose: 'investment' | 'withdrawal';
  status: 'held' | 'captured' | 'released';
};

export function createFakeLedger() {
  const accounts = new Map<string, { deposit: number; invested: number; profit: number; hold: number }>();
  const holds = new Map<string, Hold>();
  const settled = new Set<string>();
  const calls: string[] = [];
  const acct = (userId: string) => {
    let a = accounts.get(userId);
    if (!a) accounts.set(userId, (a = { deposit: 0, invested: 0, profit: 0, hold: 0 }));
    return a;
  };
  /**
   * A held hold ends once, captured or released, its amount leaving `hold`: the same end again is
   * nothing (undefined), the other end a conflict.
   */
  const endHold = (holdId: string, end: 'captured' | 'released'): Hold | undefined => {
    const h = holds.get(holdId);
    if (!h) throw notFound('Hold not found');
    if (h.status === end) return undefined;
    if (h.status !== 'held') throw conflict(`This hold has already been ${h.status}`);
    h.status = end;
    acct(h.userId).hold -= h.amountCents;
    return h;
  };
  /** A captured investment hold is invested; a captured withdrawal hold is paid out. */
  const captured = (h: Hold) => {
    if (h.purpose === 'investment') acct(h.userId).invested += h.amountCents;
  };
  const port: LedgerPort = {
    async placeHold(i) {
      calls.push(`placeHold:${i.holdId}`);
      if (holds.has(i.holdId)) return;
      const a = acct(i.userId);
      const source = i.purpose === 'investment' ? 'deposit' : 'profit';
      if (a[source] < i.amountCents) throw precondition('Insufficient balance', 'INSUFFICIENT_FUNDS');
      a[source] -= i.amountCents;
      a.hold += i.amountCents;
      holds.set(i.holdId, {
        userId: i.userId,
        amountCents: i.amountCents,
        purpose: i.purpose,
        status: 'held',
      });
    },
    async captureHold(i) {
      calls.push(`captureHold:${i.holdId}`);
      const h = endHold(i.holdId, 'captured');
      if (h) captured(h);
    },
    async releaseHold(i) {
      calls.push(`releaseHold:${i.holdId}`);
      const h = endHold(i.holdId, 'released');
      if (h) acct(h.userId)[h.purpose === 'investment' ? 'deposit' : 'profit'] += h.amountCents;
    },
    async settleMaturity(i) {
      calls.push(`settleMaturity:${i.investmentId}`);
      if (settled.has(i.investmentId)) return;
      // as the ledger does: the investment's hold captured first when it is still held
      const hold = holds.get(i.investmentId);
      if (hold?.purpose === 'investment' && hold.status === 'held') {
        endHold(i.investmentId, 'captured');
        captured(hold);
      }
      const a = acct(i.userId);
      if (a.invested < i.principalCents) throw precondition('Insufficient invested balance');
      a.invested -= i.principalCents;
      a.profit += i.maturityAmountCents;
      settled.add(i.investmentId);
    },
    async getBalances(userId) {
      const a = acct(userId);
      return { depositCents: a.deposit, investedCents: a.invested, profitCents: a.profit };
    },
  };
  return {
    port,
    calls,
    holds,
    account: acct,
  };
}
