/**
 * The withdrawal service's process manager: the held-request one (@meridian/held-request
 * processManager.ts) re-driving the ledger calls a withdrawal still owes, one sweeper per withdrawal store.
 */
import { type ProcessManager, processManagerOf } from '@meridian/held-request/app/processManager';
import type { WithdrawalContext } from './context.js';
import { withdrawals } from './withdrawals.js';

export type { ProcessManager };

/** The lease the process manager runs under (one per withdrawal store). */
export const PROCESS_MANAGER_LEASE = 'withdrawal:process-manager';

export const startProcessManager = processManagerOf<WithdrawalContext>(
  PROCESS_MANAGER_LEASE,
  withdrawals.redriveOwed,
);
