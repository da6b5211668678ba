import { api } from '../../app/apiClient';
import { timeOf } from '../../ui/dates';
import { listFrom } from '../queues/lists';

export type HistoryType = 'Transaction' | 'Investment' | 'Withdrawal';

/** One item of GET api/invest/getTransactionHistory: a deposit, an investment or a withdrawal, with its type. */
export interface HistoryItem {
  _id?: string;
  type: HistoryType | string;
  amount?: number | string;
  status?: string;
  createdAt?: string;
  startDate?: string | null;
  requestDate?: string;
  plan?: string | { name?: string };
  walletAddress?: string;
  notes?: string;
  transactionId?: string;
  investmentId?: string;
}

/** The timestamp that orders an item: createdAt (Transaction), startDate (Investment), requestDate (Withdrawal). */
export function timestampOf(item: HistoryItem): string | null | undefined {
  if (item.type === 'Investment') return item.startDate ?? item.createdAt;
  if (item.type === 'Withdrawal') return item.requestDate ?? item.createdAt;
  return item.createdAt;
}

/** Newest first. */
export function orderHistory(items: HistoryItem[]): HistoryItem[] {
  return [...items].sort((a, b) => timeOf(timestampOf(b)) - timeOf(timestampOf(a)));
}

/** GET api/invest/getTransactionHistory -> HistoryItem[] (or { history }). */
export async function fetchHistory(): Promise<HistoryItem[]> {
  return listFrom<HistoryItem>(
    (await api.get('invest/getTransactionHistory')).data,
    'history',
    'transactions',
  );
}
