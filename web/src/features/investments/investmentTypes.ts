import { formatUsd } from '../../ui/format';
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
  /** Principal plus profit: projected from the request on, fixed at approval (older answers: null). */
  maturityAmount?: number | string | null;
  startDate?: string | null;
  endDate?: string | null;
  /** The start and end are projected (pending: request time and that plus the plan's term), not yet real. */
  datesProjected?: boolean;
  createdAt?: string;
  user?: Person | string;
  /** Who initiated it when its owner did not (an admin acting as the user); absent otherwise. */
  initiatedBy?: Person | string | null;
}

export const investmentIdOf = (i: Investment) => i.investmentId ?? i._id ?? '';
/** The maturity amount as shown: dollars, marked projected until an admin approves. */
export const maturityText = (i: Investment): string =>
  i.maturityAmount == null || i.maturityAmount === ''
    ? '—'
    : `${formatUsd(i.maturityAmount)}${i.status === 'pending' ? ' (projected)' : ''}`;

export const planNameOf = (i: Investment) => (typeof i.plan === 'string' ? i.plan : (i.plan?.name ?? ''));
