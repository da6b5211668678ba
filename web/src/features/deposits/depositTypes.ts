import type { Person } from '../queues/lists';

/** Spec §3 Transaction (deposit). */
export interface Deposit {
  _id?: string;
  transactionId?: string;
  amount: number | string;
  status: string;
  notes?: string;
  createdAt?: string;
  user?: Person | string;
  /** Who initiated it when its owner did not (an admin acting as the user); absent otherwise. */
  initiatedBy?: Person | string | null;
  /** The deposit address (given in the support chat) the funds were sent to, when the declaration named one. */
  sentTo?: { network: string; address: string; addressId: string };
}

export const depositId = (d: Deposit) => d.transactionId ?? d._id ?? '';
