/**
 * Every read model of the investment service can be dropped and rebuilt from events alone, the process
 * manager's to-do list (`sync`) included: the held-request rebuild scenario (@meridian/held-request
 * testing/testStack.ts), its first approved investment matured and settled two hours later.
 */
import { expectRebuildFromEvents } from '@meridian/held-request/testing/testStack';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { it } from 'vitest';
import { caller, startStack } from '../testing/harness.js';
import { type InvestmentDoc, investmentById, investmentView } from './investmentView.js';

const PLANS = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 3_600_000 },
]);

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const stack = await startStack({ plansJson: PLANS });
  const doc = async (id: string) => (await investmentById(stack.store, id)) as InvestmentDoc;
  try {
    await expectRebuildFromEvents(stack, {
      view: investmentView,
      balanceField: 'depositCents',
      approvedStatus: 'Active',
      // matured and settled two hours later
      async afterApproval(id, advance) {
        advance(2 * 3_600_000);
        const owner = caller((await doc(id)).userId);
        await stack.call('settleDueForUser', { caller: owner, callerRole: 'subscriber' });
        await waitFor(async () => (await doc(id)).sync === 'none', 'settled');
        return { status: 'Ended', funds: 'settled' };
      },
    });
  } finally {
    await stack.stop();
  }
});
