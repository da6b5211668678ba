/**
 * The investment service's process manager: the held-request one (@meridian/held-request
 * processManager.ts) re-driving the ledger calls a investment still owes, one sweeper per investment store.
 */
import { type ProcessManager, processManagerOf } from '@meridian/held-request/app/processManager';
import type { InvestmentContext } from './context.js';
import { redriveOwed } from './investments.js';

export type { ProcessManager };

/** The lease the process manager runs under (one per investment store). */
export const PROCESS_MANAGER_LEASE = 'investment:process-manager';

export const startProcessManager = processManagerOf<InvestmentContext>(PROCESS_MANAGER_LEASE, redriveOwed);
