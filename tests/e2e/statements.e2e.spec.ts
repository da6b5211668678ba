/**
 * Verifiable statements in headless Chromium against the standalone target
 * (`make start`'s process serving a build of web/), two browser contexts, one step per test, in order:
 *
 *  1. the investor registers and verifies; the admin logs in (new browser: the emailed code);
 *  2. the investor deposits $1,000 (the admin confirms it) and invests $600 in Bronze (the admin
 *     approves it), so the ledger's hash chain holds several of the investor's entries;
 *  3. on /transaction-History the investor downloads this month's statement as JSON, PDF and CSV: the
 *     JSON passes meridian-verify's `verifyStatement` here in node, the PDF starts with %PDF, the CSV has a
 *     header and one row per ledger entry (each posting of each transaction in the JSON, with its hash);
 *  4. the page verifies the downloaded statement in the browser ("Statement intact: N entries, chain
 *     head …"), the same file chosen in the file input too; a copy with one cent altered reads
 *     "Statement NOT intact" with the problems listed;
 *  5. `npx meridian-verify` (a child process) exits 0 on the downloaded file and 1 on the altered copy;
 *  6. screenshots of the page with both verdicts at 1280 and 390 px wide
 *     (artifacts/screenshots/statements-*.png); none scrolls sideways; axe finds no serious or critical
 *     violation (tests/support/a11y.ts; records in artifacts/a11y/statements-*.json);
 *  no console or page error anywhere unless a step expected it.
 *
 *   (cd web && npx vite build) && npx vitest run --project e2e tests/e2e/statements.e2e.spec.ts
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyStatement } from 'meridian-verify';
import { checkA11y } from '../support/a11y.js';
import { SHOTS, WIDTHS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import { currentUser, money, newInvestor, pendingIdOf, sidewaysOverflow } from '../support/journey.js';
import { MONEY_PLANS_JSON } from '../support/moneyJourney.js';
import { ROOT } from '../support/standalone.js';

const ADMIN_EMAIL = 'statements-e2e-admin@example.com';
const ADMIN_PASSWORD = 'Statements-E2e-Admin-Passw0rd!';
const investor = newInvestor('Stella Statement', '+4915550144');

/** The part of a meridian-statement/1 document the journey reads. */
interface StatementJson {
  format: string;
  accounts: Array<{ accountId: string; kind: string; openingCents: number; closingCents: number }>;
  entries: Array<{ seq: number; hash: string; postings: Array<{ accountId: string; amountCents: number }> }>;
  head: { seq: number; hash: string };
}

const filesDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-statements-files-'));
const e2e = useBrowserTarget({
  name: 'statements',
  admin: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  env: { PLANS_JSON: MONEY_PLANS_JSON },
  viewport: WIDTHS[0]!,
  acceptDownloads: true,
});
const { assertNoConsoleErrors } = e2e;
let inv: BrowserContext;
let adm: BrowserContext;
let invPage: Page;
let statement: StatementJson;
const jsonPath = join(filesDir, 'statement.json');
const alteredPath = join(filesDir, 'statement-altered.json');

/** Clicks a download button of the Statements section (or acts); the file as the browser saved it. */
async function download(
  action: string | (() => Promise<void>),
  path: string,
): Promise<{ file: string; name: string }> {
  const [saved] = await Promise.all([
    invPage.waitForEvent('download', { timeout: 30_000 }),
    typeof action === 'string' ? invPage.getByRole('button', { name: action }).click() : action(),
  ]);
  expect(await saved.failure()).toBeNull();
  await saved.saveAs(path);
  return { file: path, name: saved.suggestedFilename() };
}

/** Records of a CSV text (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function csvRecords(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** `npx meridian-verify <file>` from the repository root: its exit code and output. */
function runVerifier(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['--no-install', 'meridian-verify', file],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, NODE_ENV: 'test' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

const verdict = (page: Page) => page.locator('.statement-verdict');

afterAll(() => rmSync(filesDir, { recursive: true, force: true }));

describe('verifiable statements on /transaction-History in Chromium against the standalone target', () => {
  stepsInOrder();

  it('1. the investor registers and verifies; the admin logs in', async () => {
    let admPage: Page;
    ({ inv, invPage, adm, admPage } = await e2e.investorAndAdmin(investor));
    await admPage.close();
    assertNoConsoleErrors();
  });

  it('2. a confirmed $1,000 deposit and an approved $600 investment', async () => {
    await money.deposit(inv, e2e.url, '1000');
    let transactionId = '';
    await expect
      .poll(
        async () => {
          const list = await money.pending(adm, e2e.url, 'deposits');
          const mine = list.find((d) => d.email === investor.email) ?? list[0];
          transactionId = mine ? pendingIdOf('deposits', mine) : '';
          return transactionId;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');
    await e2e.claim(adm, 'deposit', transactionId);
    await money.confirm(adm, e2e.url, transactionId);
    await expect.poll(async () => (await currentUser(inv, e2e.url)).balance, { timeout: 15_000 }).toBe(1000);

    await money.invest(inv, e2e.url, '600', 'Bronze');
    let investmentId = '';
    await expect
      .poll(
        async () => {
          const [first] = await money.pending(adm, e2e.url, 'investments');
          investmentId = first ? pendingIdOf('investments', first) : '';
          return investmentId;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');
    await e2e.claim(adm, 'investment', investmentId);
    await money.approve(adm, e2e.url, investmentId);
    await expect
      .poll(async () => (await currentUser(inv, e2e.url)).investmentBalance, { timeout: 15_000 })
      .toBe(600);
    assertNoConsoleErrors();
  });

  it('3. the statement downloads as JSON (verified in node), PDF (%PDF) and CSV (a row per ledger entry)', async () => {
    await invPage.goto('/transaction-History');
    await invPage.getByRole('list', { name: 'Transaction history' }).waitFor({ timeout: 30_000 });
    const section = invPage.getByRole('region', { name: 'Statements' });
    await section.waitFor();
    // the period defaults to this month: the 1st to today
    const from = await section.getByLabel('From').inputValue();
    const to = await section.getByLabel('To').inputValue();
    expect(from).toMatch(/^\d{4}-\d{2}-01$/);
    expect(to >= from).toBe(true);

    const json = await download('Download JSON', jsonPath);
    expect(json.name).toMatch(/\.json$/);
    statement = JSON.parse(readFileSync(jsonPath, 'utf8')) as StatementJson;
    expect(statement.format).toBe('meridian-statement/1');
    // the deposit, its confirmation and the investment: several entries of this investor's accounts
    expect(statement.entries.length).toBeGreaterThanOrEqual(2);
    const result = await verifyStatement(statement);
    expect(result, JSON.stringify(result.problems)).toMatchObject({
      intact: true,
      problems: [],
      entries: statement.entries.length,
    });
    expect(result.head).toBe(statement.head.hash);
    const deposit = statement.accounts.find((a) => a.kind === 'deposit');
    expect(deposit, JSON.stringify(statement.accounts)).toBeDefined();

    const pdf = await download('Download PDF', join(filesDir, 'statement.pdf'));
    expect(pdf.name).toMatch(/\.pdf$/);
    expect(readFileSync(pdf.file).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // the keyboard alone: Tab from "Download JSON" to "Download CSV", Enter
    await section.getByRole('button', { name: 'Download JSON' }).focus();
    await invPage.keyboard.press('Tab');
    const csvButton = section.getByRole('button', { name: 'Download CSV' });
    expect(await csvButton.evaluate((el) => el === document.activeElement)).toBe(true);
    const csv = await download(() => invPage.keyboard.press('Enter'), join(filesDir, 'statement.csv'));
    expect(csv.name).toMatch(/\.csv$/);
    const records = csvRecords(readFileSync(csv.file, 'utf8').replace(/^\uFEFF/, ''));
    const [header, ...rows] = records;
    expect(header).toEqual(['seq', 'postedAt', 'reason', 'memo', 'account', 'amount', 'hash']);
    // a row per ledger entry: every posting of every transaction of the JSON, in order, with its chain hash
    const expected = statement.entries.flatMap((e) =>
      e.postings.map((p) => [String(e.seq), p.accountId, (p.amountCents / 100).toFixed(2), e.hash]),
    );
    expect(rows.map((r) => [r[0], r[4], r[5], r[6]])).toEqual(expected);
    assertNoConsoleErrors();
  });

  it('4. the page verifies the statement in the browser: intact, then NOT intact with one cent altered', async () => {
    const head = statement.head.hash.slice(0, 12);
    const intact = `Statement intact: ${statement.entries.length} entries, chain head ${head}…`;
    // the statement just downloaded
    await invPage.getByRole('button', { name: 'Verify the statement just downloaded' }).click();
    const status = invPage.getByRole('status').filter({ hasText: 'Statement intact' });
    await status.waitFor({ timeout: 30_000 });
    expect((await status.locator('.statement-verdict__title').textContent())?.replace(/\s+/g, ' ')).toBe(
      intact,
    );

    // the same file chosen in the file input
    await invPage.getByLabel('Statement file (JSON)').setInputFiles(jsonPath);
    await invPage.getByText('Checked: statement.json').waitFor();
    await invPage.getByRole('status').filter({ hasText: 'Statement intact' }).waitFor();

    // one cent altered on one posting
    const altered = JSON.parse(JSON.stringify(statement)) as StatementJson;
    const posting = altered.entries[0]!.postings[0]!;
    posting.amountCents += 1;
    writeFileSync(alteredPath, JSON.stringify(altered, null, 2));
    await invPage.getByLabel('Statement file (JSON)').setInputFiles(alteredPath);
    const alert = invPage.getByRole('alert').filter({ hasText: 'Statement NOT intact' });
    await alert.waitFor({ timeout: 30_000 });
    await alert.getByText('Checked: statement-altered.json').waitFor();
    const problems = await alert
      .getByRole('list', { name: 'Problems found' })
      .getByRole('listitem')
      .allTextContents();
    expect(problems.length).toBeGreaterThan(0);
    expect(await invPage.getByRole('status').filter({ hasText: 'Statement intact' }).count()).toBe(0);
    const node = await verifyStatement(altered);
    expect(node.intact).toBe(false);
    assertNoConsoleErrors();
  });

  it('5. npx meridian-verify exits 0 on the downloaded statement and 1 on the altered copy', async () => {
    const good = await runVerifier(jsonPath);
    expect(good.code, good.output).toBe(0);
    const bad = await runVerifier(alteredPath);
    expect(bad.code, bad.output).toBe(1);
  });

  it('6. screenshots at 1280 and 390 px with each verdict; none scrolls sideways; axe passes', async () => {
    const overflowing: string[] = [];
    const page = await inv.newPage();
    try {
      for (const vp of WIDTHS) {
        await page.setViewportSize(vp);
        await page.goto('/transaction-History');
        await page.getByRole('list', { name: 'Transaction history' }).waitFor({ timeout: 30_000 });
        for (const [name, file, text] of [
          ['intact', jsonPath, 'Statement intact'],
          ['not-intact', alteredPath, 'Statement NOT intact'],
        ] as const) {
          await page.getByLabel('Statement file (JSON)').setInputFiles(file);
          await verdict(page).filter({ hasText: text }).waitFor({ timeout: 30_000 });
          await page.evaluate(() => document.fonts.ready);
          const overflow = await sidewaysOverflow(page);
          if (overflow) overflowing.push(`${name}-${vp.width}: ${overflow}`);
          await page.screenshot({ path: join(SHOTS, `statements-${name}-${vp.width}.png`), fullPage: true });
          await checkA11y(page, `statements ${name} ${vp.width}`);
        }
      }
    } finally {
      await page.close();
    }
    expect(overflowing).toEqual([]);
    assertNoConsoleErrors();
  });
});
