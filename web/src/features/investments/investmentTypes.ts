import type { Person } from '../queues/lists';

export interface Plan {
  _id?: string;
  name: string;
  minAmount: number;
  maxAmount: number;
}

/** Spec §3 Investment; statuses 'pending' | 'Active' | 'Rejected' | 'Ended' (compared case-sensitively). */
export interface Investment {
  _id?: string;
  investmentId?: string;
  plan?: string | { name?: string };
  status: string;
  amount: number | string;
  maturityAmount?: number | string | null;
  startDate?: string | null;
  endDate?: string | null;
  createdAt?: string;
  user?: Person | string;
}

export const investmentIdOf = (i: Investment) => i.investmentId ?? i._id ?? '';
export const planNameOf = (i: Investment) => (typeof i.plan === 'string' ? i.plan : (i.plan?.name ?? ''));
