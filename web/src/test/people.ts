import { aUser } from './render';

/** The admin who works the admin screens in the specs. */
export const admin = aUser({ _id: 'admin-1', role: 'admin' });

/** An investor as the queues and detail screens send one (just who and how to reach them). */
export const ada = { _id: 'u-2', name: 'Ada Lovelace', email: 'ada@example.com' };

/** A deposit of Ada's waiting for a decision, as GET payments/viewPaymentStatus sends it. */
export const pendingDeposit = {
  transactionId: 't1',
  amount: 1500,
  status: 'Pending',
  notes: '',
  createdAt: '2026-03-04T14:05:00Z',
  user: ada,
};
