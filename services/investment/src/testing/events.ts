/** Event fixtures shared by the investment's decider specs. */
import type { InvestmentEvent } from '../domain/investment.js';

/** The ledger settled inv-1 of u-1: $200.00 principal paying $224.00 at maturity. */
export const maturitySettled = (settledAt: string): InvestmentEvent => ({
  type: 'MaturitySettled',
  data: {
    investmentId: 'inv-1',
    userId: 'u-1',
    principalCents: 20_000,
    maturityAmountCents: 22_400,
    settledAt,
  },
});
