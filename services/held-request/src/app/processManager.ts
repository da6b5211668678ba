/**
 * The process manager of a held-request service: re-drives the ledger calls left without an outcome
 * (docs/architecture.md §4) — a request recorded but never answered by the ledger (crash, ledger down), a decision
 * (or investment's maturity) whose capture, release or settlement was not confirmed. Runs once at start
 * over everything owed, then sweeps every `intervalMs` over what has been owed longer than that (the
 * live paths finish their own calls). Every call is idempotent at the ledger, so a hold is never placed
 * twice and never leaked.
 *
 * Replicas: only the holder of the service's lease (`<service>:process-manager`) sweeps (the others
 * stand by). The calls being idempotent, two sweepers would be safe; the lease avoids the double work.
 * A replica that becomes the holder sweeps everything owed at once, as a fresh start does.
 */
import type { Logger } from '@meridian/platform/logger';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { startLeaseKeeperUnless, type LeaseSettings } from '@meridian/platform/app/lease';

export interface ProcessManager {
  /** One sweep now (tests, start); 0 without a sweep on a standby replica (another one holds the lease). */
  sweep(olderThanMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export interface ProcessManagerOptions {
  intervalMs?: number;
  lease?: LeaseSettings | false;
}

export function startHeldRequestProcessManager(
  deps: {
    store: ServiceStore;
    logger: Logger;
    /** The lease name (one per service store). */
    leaseName: string;
    /** Drives every ledger call owed for longer than `olderThanMs`; resolves to how many it drove. */
    redrive(olderThanMs: number): Promise<number>;
  },
  options: ProcessManagerOptions = {},
): ProcessManager {
  const intervalMs = options.intervalMs ?? 30_000;
  const keeper = startLeaseKeeperUnless(options.lease, {
    store: deps.store,
    name: deps.leaseName,
    onError: (err) => deps.logger.warn({ err }, 'process manager lease: store unreachable; retrying'),
  });
  let current: Promise<number> = Promise.resolve(0);
  const drive = async (olderThanMs: number) => {
    await keeper?.ready;
    if (keeper && !keeper.isHeld()) return 0;
    return deps.redrive(olderThanMs);
  };
  const sweep = (olderThanMs = intervalMs) => {
    current = current.then(
      () => drive(olderThanMs),
      () => drive(olderThanMs),
    );
    return current.catch((err) => {
      deps.logger.warn({ err }, 'process manager sweep failed');
      return 0;
    });
  };
  void sweep(0);
  // a replica that takes the lease over later sweeps everything owed at once
  let unwatch: (() => void) | undefined;
  let stopped = false;
  void keeper?.ready.then(() => {
    if (!stopped) unwatch = keeper.onChange((held) => void (held && sweep(0)));
  });
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref?.();
  return {
    sweep,
    async stop() {
      stopped = true;
      unwatch?.();
      clearInterval(timer);
      await current.catch(() => 0);
      await keeper?.stop();
    },
  };
}

/** A service's `startProcessManager(ctx, options)`: its `redriveOwed` swept under the lease `leaseName`. */
export function processManagerOf<Ctx extends { store: ServiceStore; logger: Logger }>(
  leaseName: string,
  redriveOwed: (ctx: Ctx, olderThanMs: number) => Promise<number>,
): (ctx: Ctx, options?: ProcessManagerOptions) => ProcessManager {
  return (ctx, options = {}) =>
    startHeldRequestProcessManager(
      { store: ctx.store, logger: ctx.logger, leaseName, redrive: (ms) => redriveOwed(ctx, ms) },
      options,
    );
}
