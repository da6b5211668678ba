/**
 * Accessibility checks with axe-core for the journeys: `checkA11y(page, screen)` runs
 * axe on the page as it is (WCAG 2.0/2.1 A and AA rules plus best practices), fails the test with every
 * serious or critical violation (rule, impact, help, the first offending nodes) and records the minor and
 * moderate ones, for review, in artifacts/a11y/<screen>.json (the serious ones too when the check fails).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults, ElementContext, Result, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';
import { ROOT } from './standalone.js';

const require = createRequire(import.meta.url);
/** The axe-core bundle injected into the page (axe.source is the script's text). */
const AXE_SOURCE: string = (require('axe-core') as { source: string }).source;

export const A11Y_DIR = join(ROOT, 'artifacts/a11y');
export const A11Y_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const BLOCKING = new Set(['serious', 'critical']);
/** How many offending nodes of one rule the failure message lists. */
const NODES_SHOWN = 5;

export interface A11yOptions {
  /** CSS selectors axe leaves out (e.g. a third-party widget). */
  exclude?: string[];
  /** Rule ids switched off for this check, each with the reason (printed in the record). */
  disable?: Record<string, string>;
}

export interface A11yRecord {
  screen: string;
  url: string;
  viewport: { width: number; height: number } | null;
  checkedAt: string;
  blocking: Violation[];
  review: Violation[];
  disabled: Record<string, string>;
}

export interface Violation {
  id: string;
  impact: string;
  help: string;
  helpUrl: string;
  nodes: { target: string; html: string; summary: string }[];
}

function violation(result: Result): Violation {
  return {
    id: result.id,
    impact: result.impact ?? 'unknown',
    help: result.help,
    helpUrl: result.helpUrl,
    nodes: result.nodes.map((n) => ({
      target: n.target.map(String).join(' '),
      html: n.html.slice(0, 300),
      summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
    })),
  };
}

/** One line per violation and its first nodes, for the failure message. */
export function describeViolations(violations: Violation[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, NODES_SHOWN)
        .map((n) => `      ${n.target}  — ${n.summary.slice(0, 240)}`)
        .join('\n');
      const more = v.nodes.length > NODES_SHOWN ? `\n      … and ${v.nodes.length - NODES_SHOWN} more` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} node(s))\n${nodes}${more}`;
    })
    .join('\n');
}

/** A file name for a screen ("admin dashboard 390" → admin-dashboard-390). */
function fileName(screen: string): string {
  return screen
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Runs axe on the page once (injecting axe-core when the page does not have it yet). */
export async function runAxe(page: Page, options: A11yOptions = {}): Promise<AxeResults> {
  const present = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  // evaluated through the DevTools protocol: the page's CSP (script-src 'self') refuses an inline <script>
  if (!present) await page.evaluate(AXE_SOURCE);
  const rules = Object.fromEntries(Object.keys(options.disable ?? {}).map((id) => [id, { enabled: false }]));
  return page.evaluate(
    async ({ tags, exclude, rules }) => {
      const { axe } = window as unknown as {
        axe: { run(context: ElementContext, options: RunOptions): Promise<AxeResults> };
      };
      const context: ElementContext = exclude.length ? { exclude: exclude.map((s) => [s]) } : document;
      return axe.run(context, {
        runOnly: { type: 'tag', values: tags },
        rules,
        resultTypes: ['violations'],
      });
    },
    { tags: A11Y_TAGS, exclude: options.exclude ?? [], rules },
  ) as Promise<AxeResults>;
}

/**
 * Checks the page as it is now; throws listing every serious or critical violation. Minor and moderate ones
 * go to artifacts/a11y/<screen>.json. Returns the record written.
 */
export async function checkA11y(page: Page, screen: string, options: A11yOptions = {}): Promise<A11yRecord> {
  // finite entrance animations (fade-ins, the dashboard ticker re-entering every 2 s) would make axe read
  // half-transparent colours: check with reduced motion (the stylesheet then shortens every animation to
  // 0.01 ms), and let what is still running finish
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
      undefined,
      { timeout: 10_000 },
    )
    .catch(() => undefined); // a long-running transition still gets checked
  const results = await runAxe(page, options).finally(() => page.emulateMedia({ reducedMotion: null }));
  const all = results.violations.map(violation);
  const record: A11yRecord = {
    screen,
    url: page.url(),
    viewport: page.viewportSize(),
    checkedAt: new Date().toISOString(),
    blocking: all.filter((v) => BLOCKING.has(v.impact)),
    review: all.filter((v) => !BLOCKING.has(v.impact)),
    disabled: options.disable ?? {},
  };
  mkdirSync(A11Y_DIR, { recursive: true });
  writeFileSync(join(A11Y_DIR, `${fileName(screen)}.json`), `${JSON.stringify(record, null, 2)}\n`);
  if (record.blocking.length)
    throw new Error(
      `${screen} (${record.url}): ${record.blocking.length} serious or critical accessibility violation(s):\n` +
        describeViolations(record.blocking),
    );
  return record;
}
