/**
 * Polls `condition` until it returns a truthy value (or stops throwing) and resolves with that value.
 * Rejects after `timeoutMs` with `message` plus the last value/error seen.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } | string = {},
): Promise<NonNullable<T>> {
  const opts = typeof options === 'string' ? { message: options } : options;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const intervalMs = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    try {
      last = await condition();
      lastError = undefined;
      if (last) return last as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail =
        lastError !== undefined
          ? `last error: ${String((lastError as Error)?.message ?? lastError)}`
          : `last value: ${safe(last)}`;
      throw new Error(
        `waitFor timed out after ${timeoutMs} ms: ${opts.message ?? 'condition not met'} (${detail})`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

function safe(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
