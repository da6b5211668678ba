import { api } from '../../app/apiClient';
import { getPage, type Page, type PageRequest } from '../../app/pages';
import { listFrom, messageFrom, recordFrom } from '../queues/lists';
import type { Investment, Plan } from './investmentTypes';

const enc = encodeURIComponent;

export const investmentsApi = {
  /** GET api/invest/plans -> Plan[] (the bare list). */
  async plans(): Promise<Plan[]> {
    return listFrom<Plan>((await api.get('invest/plans')).data, 'plans');
  },
  /** POST api/invest/start-invest { amount, planName } -> { message }. The amount is the free text typed. */
  async start(input: { amount: string; planName: string }): Promise<string> {
    return messageFrom((await api.post('invest/start-invest', input)).data);
  },
  /** GET api/invest/investment-history -> Investment[] (or { investments }), the caller's own. */
  async history(): Promise<Investment[]> {
    return listFrom<Investment>((await api.get('invest/investment-history')).data, 'investments', 'history');
  },
  /** One page of the caller's investments, newest first (the next page's cursor from X-Next-Cursor). */
  async historyPage(page: PageRequest): Promise<Page<Investment>> {
    const { data, nextCursor } = await getPage('invest/investment-history', page);
    return { items: listFrom<Investment>(data, 'investments', 'history'), nextCursor };
  },
  /** One page of the admin queue of pending investments, oldest first. */
  async pendingPage(page: PageRequest): Promise<Page<Investment>> {
    const { data, nextCursor } = await getPage('invest/adminPendingInvestment', page);
    return { items: listFrom<Investment>(data, 'pendingInvestments'), nextCursor };
  },
  /** GET api/invest/investment/{id} -> Investment (or { investment }); owner or admin. */
  async one(id: string): Promise<Investment | null> {
    const i = recordFrom<Investment>((await api.get(`invest/investment/${enc(id)}`)).data, 'investment');
    return i && i.status !== undefined ? i : null;
  },
  /** GET api/invest/adminPendingInvestment -> { pendingInvestments }. */
  async pending(): Promise<Investment[]> {
    return listFrom<Investment>((await api.get('invest/adminPendingInvestment')).data, 'pendingInvestments');
  },
  /** PUT api/invest/{id}/approve | reject, empty body -> { message }. */
  async decide(id: string, decision: 'approve' | 'reject'): Promise<string> {
    return messageFrom((await api.put(`invest/${enc(id)}/${decision}`)).data);
  },
};

export const INVESTMENT_DECISION_MESSAGES = {
  approveFailed: 'Failed to approve the investment.',
  rejectFailed: 'Failed to reject the investment.',
  approved: 'Investment approved',
  rejected: 'Investment rejected',
} as const;
