import { api } from '../../app/apiClient';

/** Runs on dashboard load so matured deposits are settled; the answer is not used (spec §7). */
export async function settleDepositMaturity(): Promise<void> {
  await api.get('invest/deposit-maturity');
}
