/**
 * The process manager that re-drives ledger calls left without an outcome (DESIGN.md §4): a request
 * recorded but never answered by the ledger (crash, ledger down), a decision or maturity whose capture,
 * release or settlement was not confirmed. Runs once at start over everything owed, then sweeps every
 * `intervalMs` over what has been owed longer than that (the live paths finish their own calls).
 * Every call is idempotent at the ledger, so a hold is never placed twice and never leaked.
 */
import type { InvestmentContext } from './context.js';
import { redriveOwed } from './investments.js';

export interface ProcessManager {
  /** One sweep now (tests, start). */
  sweep(olderThanMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export function startProcessManager(
  ctx: InvestmentContext,
  options: { intervalMs?: number } = {},
): ProcessManager {
  const intervalMs = options.intervalMs ?? 30_000;
  let current: Promise<number> = Promise.resolve(0);
  const sweep = (olderThanMs = intervalMs) => {
    current = current.then(
      () => redriveOwed(ctx, olderThanMs),
      () => redriveOwed(ctx, olderThanMs),
    );
    return current.catch((err) => {
      ctx.logger.warn({ err }, 'process manager sweep failed');
      return 0;
    });
  };
  void sweep(0);
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref?.();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await current.catch(() => 0);
    },
  };
}
