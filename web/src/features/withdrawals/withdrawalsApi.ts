import { api } from '../../app/apiClient';
import { getPage, type Page, type PageRequest } from '../../app/pages';
import { listFrom, messageFrom, recordFrom } from '../queues/lists';
import type { Withdrawal } from './withdrawalTypes';

const enc = encodeURIComponent;

export const withdrawalsApi = {
  /** GET api/withDraw/balance -> { totalMaturityAmount } (the withdrawable Total Profit). */
  async balance(): Promise<number | null> {
    const v = (await api.get('withDraw/balance')).data as { totalMaturityAmount?: unknown } | null;
    const n =
      typeof v?.totalMaturityAmount === 'number' ? v.totalMaturityAmount : Number(v?.totalMaturityAmount);
    return Number.isFinite(n) ? n : null;
  },
  /** POST api/withDraw/create { amount, walletAddress } -> { message }. */
  async create(input: { amount: string; walletAddress: string }): Promise<string> {
    return messageFrom((await api.post('withDraw/create', input)).data);
  },
  /** GET api/withDraw/pending -> { withdrawals }. */
  async pending(): Promise<Withdrawal[]> {
    return listFrom<Withdrawal>((await api.get('withDraw/pending')).data, 'withdrawals');
  },
  /** One page of the admin queue of pending withdrawals, oldest first. */
  async pendingPage(page: PageRequest): Promise<Page<Withdrawal>> {
    const { data, nextCursor } = await getPage('withDraw/pending', page);
    return { items: listFrom<Withdrawal>(data, 'withdrawals'), nextCursor };
  },
  /** GET api/withDraw/get-withdrawal/{id} -> Withdrawal (bare or { withdrawal }); without an amount it is invalid. */
  async one(id: string): Promise<Withdrawal | null> {
    const w = recordFrom<Withdrawal>(
      (await api.get(`withDraw/get-withdrawal/${enc(id)}`)).data,
      'withdrawal',
    );
    return w && w.amount !== undefined && w.amount !== null && w.amount !== '' ? w : null;
  },
  /** PUT api/withDraw/approve/{id} | reject/{id}, empty body -> { message }. */
  async decide(id: string, decision: 'approve' | 'reject'): Promise<string> {
    return messageFrom((await api.put(`withDraw/${decision}/${enc(id)}`)).data);
  },
};
