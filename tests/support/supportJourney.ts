/**
 * The support chat journey in two browsers, written once and run against any target that serves web/dist:
 * the standalone target (tests/e2e/support.e2e.spec.ts, one URL for both browsers, with screenshots and axe)
 * and the production topology (tests/e2e/money.cluster.e2e.spec.ts: the investor's browser on gateway A,
 * the admin's on gateway B, so every live push below crosses gateway instances). One step per test, in order:
 *
 *  1. a visitor asks on the home page through the pre-chat form;
 *  2. the visitor signs up with that email and the conversation follows them;
 *  3. the admin adds an Ethereum address to the book and opens the conversation; the investor writes again
 *     and the admin's open thread shows it without a reload; the admin claims the conversation;
 *  4. the admin types a reply: the investor's open panel shows "Support is typing…"; the reply and the
 *     deposit address arrive in it without a reload;
 *  5. the investor declares a deposit to that address on /deposit-payment;
 *  6. the admin confirms it, seeing the network and address beside the amount;
 *  no console or page error anywhere unless a step expected it.
 * With `shots`, the launcher, the panel and the inbox are screenshot at 1280 and 390 px
 * (artifacts/screenshots/<shotPrefix>*.png), each checked with axe (no serious or critical violation).
 */
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkA11y } from './a11y.js';
import { SHOTS, useJourneyBrowsers, type JourneyOptions } from './browserTarget.js';
import { loginWithCode, newInvestor, registerAndVerify } from './journey.js';
/** An Ethereum address with a valid EIP-55 checksum (the EIP's own example). */
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const WIDTHS = [1280, 390] as const;

export interface SupportJourneyOptions extends JourneyOptions {
  /** When set, screenshots and axe checks at 1280 and 390 px, named `${shotPrefix}<screen>-<width>.png`. */
  shotPrefix?: string;
}

/** Declares the journey's describe block (its hooks start and stop the target). */
export function describeSupportJourney(options: SupportJourneyOptions): void {
  const investor = newInvestor('Vera Visitor', '+4915550123');
  const first = 'Hello, where do I send my first deposit?';
  const again = 'I have an account now.';
  const answer = 'Hello Vera, here is your address.';
  let invUrl = '';
  let admUrl = '';
  let inv: BrowserContext;
  let adm: BrowserContext;
  let invPage: Page;
  let admPage: Page;

  /** With shotPrefix: the page at each width, screenshot and axe-checked after `prepare` (run again at each width). */
  async function shoot(page: Page, name: string, prepare: () => Promise<void>): Promise<void> {
    if (options.shotPrefix === undefined) return;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await prepare();
      await page.screenshot({ path: join(SHOTS, `${options.shotPrefix}${name}-${width}.png`) });
      const record = await checkA11y(page, `${options.shotPrefix}${name} ${width}`);
      expect(record.blocking).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  const launcher = (page: Page) => page.getByRole('button', { name: /^Chat with support/ });
  const panel = (page: Page) => page.getByRole('dialog', { name: 'Support' });
  const thread = () => admPage.getByRole('region', { name: investor.name });
  /**
   * A conversation's message list: a message is looked for there, never in the whole panel, whose composer holds
   * the same text until the send is answered (a push may show the message before that).
   */
  const messagesIn = (scope: Locator) => scope.getByRole('list', { name: 'Messages' });

  async function openPanel(page: Page): Promise<void> {
    if (await panel(page).isVisible()) return;
    await launcher(page).click();
    await panel(page).waitFor();
  }

  describe.skipIf(!!options.skipReason)(options.title, () => {
    const browsers = useJourneyBrowsers(options, (target) => {
      ({ investorUrl: invUrl, adminUrl: admUrl } = target);
    });
    const { watcher, newContext } = browsers;

    it('1. a visitor asks on the home page through the pre-chat form', async () => {
      inv = await newContext('visitor', invUrl);
      invPage = await inv.newPage();
      await invPage.goto('/');
      await launcher(invPage).waitFor();
      await shoot(invPage, 'launcher', async () => {
        await launcher(invPage).waitFor();
      });
      await openPanel(invPage);
      const form = panel(invPage).getByRole('form', { name: 'Start a chat' });
      await form.getByLabel('Name').fill(investor.name);
      await form.getByLabel('Email').fill(investor.email);
      await form.getByLabel('Message').fill(first);
      await form.getByRole('button', { name: 'Start chat' }).click();
      await messagesIn(panel(invPage)).getByText(first).waitFor();
      await shoot(invPage, 'panel', async () => {
        await openPanel(invPage);
        await panel(invPage).getByRole('textbox', { name: 'Message to support' }).waitFor();
      });
    });

    it('2. the visitor signs up with that email and the conversation follows them', async () => {
      await invPage.keyboard.press('Escape');
      await registerAndVerify(invPage, invUrl, investor);
      await invPage.goto('/dashboard');
      await expect
        .poll(
          async () => {
            await invPage.reload();
            await openPanel(invPage);
            return messagesIn(panel(invPage)).getByText(first).isVisible();
          },
          { timeout: 30_000, interval: 1000 },
        )
        .toBe(true);
    });

    it("3. the admin opens the conversation; the investor's new message arrives in it live; the admin claims it", async () => {
      adm = await newContext('admin', admUrl);
      admPage = await adm.newPage();
      await loginWithCode(
        admPage,
        admUrl,
        watcher,
        browsers.target.admin.email,
        browsers.target.admin.password,
      );
      // each browser on its own URL (on the cluster: its own gateway, so every live push below crosses instances)
      expect(new URL(invPage.url()).origin).toBe(new URL(invUrl).origin);
      expect(new URL(admPage.url()).origin).toBe(new URL(admUrl).origin);

      await admPage.goto('/admin-deposit-addresses');
      const form = admPage.getByRole('form', { name: 'Add an address' });
      await form.getByLabel('Network').selectOption('ethereum');
      await form.getByLabel('Label').fill('ETH main');
      await form.getByLabel('Address').fill(ETH_ADDRESS);
      await form.getByRole('button', { name: 'Add address' }).click();
      await admPage.getByRole('table', { name: 'Deposit addresses' }).getByText('ETH main').waitFor();

      await admPage.goto('/support-inbox');
      await admPage.getByRole('list', { name: 'Conversations' }).getByText(investor.name).click();
      await messagesIn(thread()).getByText(first).waitFor();

      await openPanel(invPage);
      await panel(invPage).getByRole('textbox', { name: 'Message to support' }).fill(again);
      await panel(invPage).getByRole('textbox', { name: 'Message to support' }).press('Enter');
      await messagesIn(panel(invPage)).getByText(again).waitFor();
      await messagesIn(thread()).getByText(again).waitFor({ timeout: 10_000 }); // support/message, no reload

      await thread().getByRole('button', { name: 'Assign to me' }).click();
      await thread().getByText('Assigned to you').waitFor();
    });

    it('4. the admin types and sends a reply and the address: the open panel shows typing, then both, live', async () => {
      await thread().getByRole('textbox', { name: 'Reply' }).fill(answer);
      await panel(invPage).getByText('Support is typing…').waitFor({ timeout: 10_000 }); // support/typing
      await thread().getByRole('button', { name: 'Send reply' }).click();
      await messagesIn(thread()).getByText(answer).waitFor();
      await messagesIn(panel(invPage)).getByText(answer).waitFor({ timeout: 10_000 }); // support/message, no reload
      await expect.poll(() => panel(invPage).getByText('Support is typing…').count()).toBe(0);

      await thread().getByRole('button', { name: 'Send deposit address' }).click();
      const dialog = admPage.getByRole('dialog', { name: 'Send deposit address' });
      await dialog.getByRole('radio', { name: /ETH main/ }).check();
      await dialog.getByRole('button', { name: 'Send address' }).click();
      await thread().getByRole('group', { name: 'Deposit address on Ethereum (ETH)' }).waitFor();
      await shoot(admPage, 'inbox', async () => {
        await thread().getByRole('group', { name: 'Deposit address on Ethereum (ETH)' }).waitFor();
      });

      const card = panel(invPage).getByRole('group', { name: 'Deposit address on Ethereum (ETH)' });
      await card.waitFor({ timeout: 10_000 });
      await expect.poll(() => card.textContent()).toContain(ETH_ADDRESS);
      await shoot(invPage, 'panel-address', async () => {
        await openPanel(invPage);
        await card.waitFor();
      });
    });

    it('5. the investor declares a deposit to that address', async () => {
      await invPage.keyboard.press('Escape');
      await invPage.goto('/deposit-payment');
      const sentTo = invPage.getByRole('group', { name: 'Sent to' });
      await sentTo.waitFor();
      await expect.poll(() => sentTo.getByRole('radio').first().isChecked()).toBe(true);
      await invPage.getByLabel('Amount (USD)').fill('250');
      const created = invPage.waitForResponse((r) => r.url().endsWith('/api/payments/create'));
      await invPage.getByRole('button', { name: 'Submit deposit' }).click();
      expect((await created).status()).toBe(201);
    });

    it('6. the admin confirms the deposit, seeing the network and address beside the amount', async () => {
      await admPage.goto('/admin-pending-deposit');
      const item = admPage.getByRole('listitem', { name: `Deposit of $250.00 by ${investor.name}` });
      await item.getByRole('link', { name: /Review deposit/ }).click({ timeout: 15_000 });
      await admPage.waitForURL('**/transaction/*');
      const details = admPage.getByLabel('Payment');
      await details.getByText(ETH_ADDRESS).waitFor();
      await expect.poll(() => details.textContent()).toContain('Ethereum (ETH)');
      await admPage.getByRole('button', { name: 'Confirm payment' }).click();
      await admPage.locator('.detail-head').getByText('Confirmed').waitFor();
      expect(await admPage.getByRole('button', { name: 'Confirm payment' }).count()).toBe(0);
      expect(watcher.unexpected(), 'console errors or page errors nobody expected').toEqual([]);
    });
  });
}
