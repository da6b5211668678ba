/** The accessibility journey's screen checks: each screen at both widths, checked with axe and screenshotted. */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { checkA11y } from './a11y.js';
import { SHOTS, WIDTHS } from './browserTarget.js';

/** One screen to check: where, what shows it is ready, and what to open before the check. */
export interface Screen {
  name: string;
  path: string;
  /** Text on the screen once its data has loaded. */
  ready?: string;
  /** Opens a dialog or menu, fills a form...; `width` is the viewport's. */
  prepare?: (page: Page, width: number) => Promise<void>;
  /** Only at these widths (default both). */
  widths?: number[];
  /** Runs before navigating (e.g. a frozen clock). */
  before?: (page: Page) => Promise<void>;
}

/**
 * Checks every screen at both widths and returns every failure (all of them, not only the first, so one run
 * lists everything to fix); a screen that does not come up is a failure too.
 */
export async function checkScreens(context: BrowserContext, screens: Screen[]): Promise<string[]> {
  const failures: string[] = [];
  for (const screen of screens) {
    for (const viewport of WIDTHS) {
      if (screen.widths && !screen.widths.includes(viewport.width)) continue;
      const name = `${screen.name}-${viewport.width}`;
      const page = await context.newPage();
      try {
        await page.setViewportSize(viewport);
        await screen.before?.(page);
        await page.goto(screen.path);
        if (screen.ready) await page.getByText(screen.ready).first().waitFor({ timeout: 30_000 });
        await screen.prepare?.(page, viewport.width);
        await page.evaluate(() => document.fonts.ready.then(() => undefined));
        try {
          await checkA11y(page, name);
        } finally {
          await page.screenshot({ path: join(SHOTS, `a11y-${name}.png`), fullPage: true });
        }
      } catch (err) {
        failures.push(`${name}: ${(err as Error).message}`);
      } finally {
        await page.close();
      }
    }
  }
  return failures;
}

export function expectNoFailures(failures: string[]): void {
  if (failures.length)
    throw new Error(`${failures.length} screen(s) failed the accessibility check:\n${failures.join('\n')}`);
}

/** The phone menu (the toggle only shows below the desktop breakpoint). */
export async function openMobileMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Hierarchy' }).waitFor();
}
