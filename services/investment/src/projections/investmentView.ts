/**
 * Read models of the investment service, written in the same transaction as the events they come
 * from. Pure: `projectInvestment(doc, event)` turns the current document and one stored event into the
 * next document; the queries below read them.
 *
 * | collection  | id           | from                                                   |
 * |-------------|--------------|--------------------------------------------------------|
 * | investments | investmentId | the investment's own events (state + queue/due fields) |
 * | users       | userId       | identity's UserRegistered / ProfileUpdated (directory) |
 *
 * An investment's document is a held-request document (@meridian/held-request
 * projections/requestView.ts): its state, and `sync`, the ledger call it still owes
 * (hold, capture, release, settle), a projection of the stream like every other field. The process
 * manager reads its to-do list here and writes nothing but events, so every collection can be dropped
 * and rebuilt from the events alone (the investments from the service's own log, the users directory by
 * replaying identity's topic, which is kept forever): projections/rebuild.int.spec.ts does exactly that.
 */
import { type RequestDoc, requestView } from '@meridian/held-request/projections/requestView';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { type ExistingInvestment, type LedgerCallOwed, INVESTMENT_KIND } from '../domain/investment.js';

export const COLLECTIONS = { investments: 'investments' } as const;

export type InvestmentDoc = RequestDoc<ExistingInvestment, LedgerCallOwed>;

export const investmentView = requestView({
  ...INVESTMENT_KIND,
  collection: COLLECTIONS.investments,
  dateField: 'requestedAt',
});
export const { project: projectInvestment, byId: investmentById } = investmentView;

/** The index the due scan reads (activeByEndDate): Active investments by endDate, then id. */
export const DUE_INDEX = { collection: COLLECTIONS.investments, fields: ['status', 'endDate'] } as const;

/**
 * Active investments by endDate, soonest first (the maturity scheduler's index, DUE_INDEX); `after`: only
 * those after this one in that order (the next page of a scan).
 */
export function activeByEndDate(
  reads: StoreReads,
  limit: number,
  where: Record<string, string> = {},
  after?: Pick<InvestmentDoc, 'endDate' | 'investmentId'>,
): Promise<InvestmentDoc[]> {
  return reads.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { ...where, status: 'Active' },
    orderBy: { field: 'endDate', direction: 'asc' },
    limit,
    ...(after ? { after: { value: after.endDate, id: after.investmentId } } : {}),
  });
}
