/**
 * What the dashboards show, computed from the lists the API already serves (no series endpoint):
 * each active investment's progress to maturity, Total Investment and Total Profit over time, and the
 * admin's money flow of today. Pure: time is passed in. Amounts are summed as integer cents.
 */
import type { ChartPoint } from '../../ui/TimeSeriesChart';
import { timeOf } from '../../ui/dates';
import type { HistoryItem } from '../history/history';
import type { Investment } from '../investments/investmentTypes';
import { investmentIdOf, planNameOf } from '../investments/investmentTypes';

/** Dollars as the API writes them (a number or a numeric string) to integer cents; 0 when not a number. */
export function toCents(dollars: unknown): number {
  const n = typeof dollars === 'number' ? dollars : Number(dollars ?? NaN);
  return Number.isFinite(n) ? Math.round(n * 100) : 0;
}

export interface InvestmentProgress {
  id: string;
  plan: string;
  amountCents: number;
  /** Principal plus profit at maturity (maturityAmount). */
  maturityCents: number;
  /** The value now: the principal plus the profit earned so far, linear over the term. */
  nowCents: number;
  /** Elapsed share of the term, 0..100 (not rounded). */
  percent: number;
  startDate: string;
  endDate: string;
}

/** Progress of every Active investment with a start and an end date, the one maturing first on top. */
export function activeProgress(investments: readonly Investment[], nowMs: number): InvestmentProgress[] {
  const out: InvestmentProgress[] = [];
  for (const i of investments) {
    if (i.status !== 'Active' || !i.startDate || !i.endDate) continue;
    const start = timeOf(i.startDate);
    const end = timeOf(i.endDate);
    if (!start || !end) continue;
    const fraction = end > start ? Math.max(0, Math.min(1, (nowMs - start) / (end - start))) : 1;
    const amountCents = toCents(i.amount);
    const maturityCents = i.maturityAmount == null ? amountCents : toCents(i.maturityAmount);
    out.push({
      id: investmentIdOf(i),
      plan: planNameOf(i) || 'Investment',
      amountCents,
      maturityCents,
      nowCents: amountCents + Math.round((maturityCents - amountCents) * fraction),
      percent: fraction * 100,
      startDate: i.startDate,
      endDate: i.endDate,
    });
  }
  return out.sort((a, b) => timeOf(a.endDate) - timeOf(b.endDate));
}

export const GROWTH_SERIES = ['Total Investment', 'Total Profit'] as const;

/**
 * Total Investment and Total Profit after every change, oldest first, plus a last point at `nowMs`:
 * an approved investment adds its amount to Total Investment at its start; when it ended, the amount
 * leaves Total Investment and its maturity amount joins Total Profit at its end; a withdrawal that was
 * not rejected leaves Total Profit when requested. (Admin balance edits are not in these lists.)
 */
export function growthSeries(
  investments: readonly Investment[],
  history: readonly HistoryItem[],
  nowMs: number,
): ChartPoint[] {
  const changes: Array<{ at: number; invested: number; profit: number }> = [];
  for (const i of investments) {
    if (i.status !== 'Active' && i.status !== 'Ended') continue;
    const start = timeOf(i.startDate ?? i.createdAt);
    if (!start) continue;
    const amount = toCents(i.amount);
    changes.push({ at: start, invested: amount, profit: 0 });
    const end = timeOf(i.endDate);
    if (i.status === 'Ended' && end) {
      const maturity = i.maturityAmount == null ? amount : toCents(i.maturityAmount);
      changes.push({ at: Math.max(end, start), invested: -amount, profit: maturity });
    }
  }
  for (const h of history) {
    if (h.type !== 'Withdrawal' || h.status === 'Rejected') continue;
    const at = timeOf(h.requestDate ?? h.createdAt);
    if (at) changes.push({ at, invested: 0, profit: -toCents(h.amount) });
  }
  if (changes.length === 0) return [];
  changes.sort((a, b) => a.at - b.at);
  const points: ChartPoint[] = [];
  let invested = 0;
  let profit = 0;
  for (const c of changes) {
    invested += c.invested;
    profit += c.profit;
    const last = points[points.length - 1];
    if (last && last.at === c.at) last.cents = [invested, profit];
    else points.push({ at: c.at, cents: [invested, profit] });
  }
  const last = points[points.length - 1]!;
  if (nowMs > last.at) points.push({ at: nowMs, cents: [...last.cents] });
  return points;
}

// ---------- the admin's money flow of today ----------

export type FlowKind = 'deposits' | 'withdrawals' | 'investments';
export type MoneyFlow = Record<FlowKind, number>;
export const NO_FLOW: MoneyFlow = { deposits: 0, withdrawals: 0, investments: 0 };

/** The audit actions that move money, and the status a live queue/itemDecided push carries for each. */
export const FLOW_ACTIONS: Record<FlowKind, { action: string; decided: string; idField: string }> = {
  deposits: { action: 'DepositConfirmed', decided: 'Confirmed', idField: 'depositId' },
  withdrawals: { action: 'WithdrawalApproved', decided: 'Approved', idField: 'withdrawalId' },
  investments: { action: 'InvestmentApproved', decided: 'Active', idField: 'investmentId' },
};

/** The id and integer cents an audit entry's `details` (the event's data as JSON) carry, or null. */
export function flowOfDetails(kind: FlowKind, details: string): { id: string; cents: number } | null {
  let data: unknown;
  try {
    data = JSON.parse(details);
  } catch {
    return null;
  }
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const cents = d.amountCents;
  const id = d[FLOW_ACTIONS[kind].idField];
  if (typeof cents !== 'number' || !Number.isInteger(cents) || typeof id !== 'string') return null;
  return { id, cents };
}

/** Local midnight of the day `nowMs` falls in, as an ISO instant (the audit filter's `from`). */
export function startOfDayIso(nowMs: number): string {
  const d = new Date(nowMs);
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}
