/** Small async primitives shared by the adapters and the relay. No drivers here. */
import { WriteConflict } from '../eventSourcing/errors.js';

/** A FIFO mutex: `run(fn)` executes fn when every earlier run has settled. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * A level-triggered wake-up: `notify()` marks it set; `wait()` resolves at once when set (and clears
 * it), otherwise at the next notify() or after `timeoutMs`. Notifications never get lost between a
 * check and a wait.
 */
export class Signal {
  private set = false;
  private waiters: Array<() => void> = [];

  notify(): void {
    this.set = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  wait(timeoutMs?: number): Promise<void> {
    if (this.set) {
      this.set = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        this.set = false;
        resolve();
      };
      this.waiters.push(done);
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== done);
          resolve();
        }, timeoutMs);
      }
    });
  }
}

/** Exponential backoff with full jitter, capped. attempt starts at 1. */
export function backoffMs(attempt: number, baseMs = 50, maxMs = 5_000): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 20));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Runs `attempt` again from the start while it loses a race to another writer (throws a WriteConflict), at most
 * `attempts` times in all; the last attempt's WriteConflict, like any other error, reaches the caller.
 */
export async function retryAfterConflict<T>(attempts: number, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof WriteConflict) || n >= attempts) throw err;
    }
  }
}
