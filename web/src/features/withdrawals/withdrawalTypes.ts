import type { Person } from '../queues/lists';

/** Spec §3 Withdrawal: `user` is an object with name and email in lists, a single value in the detail. */
export interface Withdrawal {
  _id?: string;
  user?: Person | string;
  amount?: number | string | null;
  walletAddress?: string | null;
  status: string;
  requestDate?: string;
  /** Who initiated it when its owner did not (an admin acting as the user); absent otherwise. */
  initiatedBy?: Person | string | null;
}
