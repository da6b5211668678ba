/** Money requests waiting for a decision, as the specs' fake gateway answers them (test data only). */
import { ada } from '../../test/people';

/** A withdrawal of Ada's, as GET withDraw/get-withdrawal sends it (its user as a bare name). */
export const pendingWithdrawal = {
  _id: 'w1',
  user: 'Ada Lovelace',
  amount: 250,
  walletAddress: '0xabc',
  status: 'Pending',
  requestDate: '2026-03-04T14:05:00Z',
};

/** An investment of Ada's, as GET invest/investment sends it. */
export const pendingInvestment = {
  _id: 'i3',
  plan: 'Silver',
  status: 'pending',
  amount: 2000,
  maturityAmount: 2400,
  user: ada,
};
