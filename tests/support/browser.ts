/**
 * Headless Debian Chromium through playwright-core, and a watcher that fails a journey on any console
 * error or uncaught page error it was not told to expect.
 */
import { testEnv } from '../helpers/testEnv.js';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../web/scripts/chromium.js';

export const CHROMIUM_PATH = testEnv().CHROMIUM_PATH;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A console error the journey provokes on purpose (e.g. the 400 'New browser' answer to a login). */
export interface ExpectedError {
  /** Why it is expected, shown when a rule was never used. */
  why: string;
  /** Matches the console text ("Failed to load resource: the server responded with a status of 400 ..."). */
  text: RegExp;
  /** Matches the URL Chromium attributes the message to (the failed resource for network errors). */
  url?: RegExp;
  /** How many times it may occur (default 1). */
  times?: number;
}

interface Rule extends ExpectedError {
  seen: number;
}

export interface Problem {
  context: string;
  kind: 'console' | 'pageerror';
  text: string;
  url: string;
}

/** Collects console errors and page errors of every page of the contexts it watches. */
export class ConsoleWatcher {
  readonly problems: Problem[] = [];
  readonly expectedSeen: Problem[] = [];
  private rules: Rule[] = [];

  watch(context: BrowserContext, label: string): BrowserContext {
    context.on('console', (msg: ConsoleMessage) => {
      if (msg.type() !== 'error') return;
      this.record({ context: label, kind: 'console', text: msg.text(), url: msg.location().url ?? '' });
    });
    context.on('weberror', (webError) => {
      const error = webError.error();
      this.record({
        context: label,
        kind: 'pageerror',
        text: `${error.name}: ${error.message}`,
        url: webError.page()?.url() ?? '',
      });
    });
    return context;
  }

  /** Allows the next `times` console errors matching the rule (a 4xx the step provokes on purpose). */
  expect(rule: ExpectedError): void {
    this.rules.push({ ...rule, seen: 0 });
  }

  /** Problems nobody expected, as lines. */
  unexpected(): string[] {
    return this.problems.map((p) => `[${p.context}] ${p.kind}: ${p.text} (${p.url})`);
  }

  private record(problem: Problem): void {
    const rule = this.rules.find(
      (r) => r.seen < (r.times ?? 1) && r.text.test(problem.text) && (!r.url || r.url.test(problem.url)),
    );
    if (rule) {
      rule.seen += 1;
      this.expectedSeen.push(problem);
    } else this.problems.push(problem);
  }
}
