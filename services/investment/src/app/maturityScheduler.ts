/**
 * The durable maturity scheduler (docs/architecture.md §3a). Durable because it keeps no state of its own: the
 * due-date index is the `investments` read model (Active, ordered by endDate). A timer is armed for the
 * soonest endDate, re-armed after every run, after every approval (poke) and at start from the store —
 * so a restart picks up whatever fell due while the process was down. Each run settles every due
 * investment in batches (settleDueInBatches): one ledger SettleMaturities call per batch first, each
 * maturity settled once (its idempotency key), then InvestmentMatured and MaturitySettled recorded in one
 * append per investment (once: the stream's version); settlements left owing are settled first.
 *
 * Replicas: only the holder of the lease `investment:maturity-scheduler` runs passes (the others
 * stand by and take over when it dies or stops). Maturing twice would already be harmless (the
 * stream's version and the ledger's idempotency key); the lease avoids the double work and the
 * duplicate ledger calls. A standby's pokes are no-ops: the holder re-reads the schedule at least
 * every maxDelayMs, so an approval made on another replica is picked up within that delay.
 */
import { startLeaseKeeperUnless, type LeaseSettings } from '@meridian/platform/app/lease';
import { activeByEndDate } from '../projections/investmentView.js';
import type { InvestmentContext } from './context.js';
import { settleDueInBatches } from './investments.js';

export interface MaturityScheduler {
  /** Re-reads the soonest endDate and re-arms the timer. */
  poke(): void;
  /** Resolves when the running pass (if any) is over. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The lease the scheduler runs under (one per investment store). */
export const MATURITY_SCHEDULER_LEASE = 'investment:maturity-scheduler';

export function startMaturityScheduler(
  ctx: InvestmentContext,
  options: { maxDelayMs?: number; retryMs?: number; lease?: LeaseSettings | false; batchSize?: number } = {},
): MaturityScheduler {
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const retryMs = options.retryMs ?? 5_000;
  const keeper = startLeaseKeeperUnless(options.lease, {
    store: ctx.store,
    name: MATURITY_SCHEDULER_LEASE,
    onError: (err) => ctx.logger.warn({ err }, 'maturity scheduler lease: store unreachable; retrying'),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let again = false;
  let stopped = false;

  const arm = (delayMs: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), Math.max(0, Math.min(delayMs, maxDelayMs)));
    timer.unref?.();
  };

  const pass = async () => {
    await keeper?.ready;
    if (keeper && !keeper.isHeld()) {
      // standby: the holder runs the schedule; we are woken when the lease comes our way
      if (timer) clearTimeout(timer);
      timer = undefined;
      return;
    }
    try {
      await settleDueInBatches(ctx, { batchSize: options.batchSize });
      const [next] = await activeByEndDate(ctx.store, 1);
      if (next?.endDate) arm(Date.parse(next.endDate) - ctx.clock().getTime());
      else if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    } catch (err) {
      ctx.logger.warn({ err }, 'maturity pass failed; retrying');
      arm(retryMs);
    }
  };

  const tick = async () => {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stopped);
      busy = false;
    })();
    await running;
  };

  const unwatch = keeper?.onChange((held) => {
    if (held) void tick();
  });
  void tick();
  return {
    poke: () => void tick(),
    idle: () => running,
    async stop() {
      stopped = true;
      unwatch?.();
      if (timer) clearTimeout(timer);
      await running;
      await keeper?.stop();
    },
  };
}
