import { api } from '../../app/apiClient';
import { getPage, type Page, type PageRequest } from '../../app/pages';
import { listFrom, messageFrom, recordFrom } from '../queues/lists';
import type { Deposit } from './depositTypes';

const enc = encodeURIComponent;

export const depositsApi = {
  /** POST api/payments/create { amount } -> { message }. The amount is the text typed, e.g. "250.50". */
  async create(amount: string): Promise<string> {
    return messageFrom((await api.post('payments/create', { amount })).data);
  },
  /** GET api/payments/pending-deposit -> { deposit: Deposit[] } (oldest first). */
  async pending(): Promise<Deposit[]> {
    return listFrom<Deposit>((await api.get('payments/pending-deposit')).data, 'deposit');
  },
  /** One page of the queue (limit, cursor; the next page's cursor from X-Next-Cursor). */
  async pendingPage(page: PageRequest): Promise<Page<Deposit>> {
    const { data, nextCursor } = await getPage('payments/pending-deposit', page);
    return { items: listFrom<Deposit>(data, 'deposit'), nextCursor };
  },
  /** GET api/payments/viewPaymentStatus/{transactionId} -> Deposit (bare, or under `transaction`). */
  async view(transactionId: string): Promise<Deposit | null> {
    const d = recordFrom<Deposit>(
      (await api.get(`payments/viewPaymentStatus/${enc(transactionId)}`)).data,
      'transaction',
      'payment',
    );
    return d && d.status !== undefined ? d : null;
  },
  /** PATCH api/payments/confirmPayment | rejectPayment { transactionId, status, notes } -> { message }. */
  async decide(transactionId: string, decision: 'confirm' | 'reject', notes: string): Promise<string> {
    const path = decision === 'confirm' ? 'payments/confirmPayment' : 'payments/rejectPayment';
    const status = decision === 'confirm' ? 'Confirmed' : 'Rejected';
    return messageFrom((await api.patch(path, { transactionId, status, notes })).data);
  },
};
