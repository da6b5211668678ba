/**
 * Every read model of the withdrawal service can be dropped and rebuilt from events alone, the process
 * manager's to-do list (`sync`) included: the held-request rebuild scenario (@meridian/held-request
 * testing/testStack.ts), its first approved withdrawal paid out at once.
 */
import { expectRebuildFromEvents } from '@meridian/held-request/testing/testStack';
import { it } from 'vitest';
import { startStack } from '../testing/harness.js';
import { withdrawalView } from './withdrawalView.js';

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const stack = await startStack();
  try {
    await expectRebuildFromEvents(stack, {
      view: withdrawalView,
      balanceField: 'profitCents',
      approvedStatus: 'Approved',
      // approved: paid out
      afterApproval: async () => ({ status: 'Approved', sync: 'none', funds: 'captured' }),
    });
  } finally {
    await stack.stop();
  }
});
