import { afterEach, beforeEach } from 'vitest';

/**
 * The setup of an integration spec: a fresh harness from `start` before each test, `finish` (a check, then
 * stop) after it. The harness returned stands for the current test's; outside a test it throws, naming `what`.
 */
export function harnessPerTest<H extends object>(
  what: string,
  start: () => Promise<H>,
  finish: (harness: H) => Promise<void>,
): H {
  let current: H | undefined;
  beforeEach(async () => {
    current = await start();
  });
  afterEach(async () => {
    const h = current;
    current = undefined;
    if (h) await finish(h);
  });
  return new Proxy({} as H, {
    get(_, key) {
      if (!current) throw new Error(`${what} exists inside a test only`);
      return Reflect.get(current, key) as unknown;
    },
  });
}
