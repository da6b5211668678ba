import { screen, waitFor, within } from '@testing-library/react';
import { entryHash, GENESIS_HASH, type Statement, type StatementEntry } from 'meridian-verify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';
import { blobText, statementQuery, STATEMENT_MESSAGES, thisMonth } from './statementsApi';

let server: ReturnType<typeof fakeApi>;
let saved: Array<{ href: string; download: string }>;
const blobs = new Map<string, Blob>();

beforeEach(() => {
  server = fakeApi({
    'GET users/loginStatus': [200, true],
    'GET invest/getTransactionHistory': [200, []],
  });
  saved = [];
  blobs.clear();
  // jsdom has no object URLs and does not navigate: the link the page clicks is recorded instead
  let n = 0;
  URL.createObjectURL = (blob: Blob) => {
    const href = `blob:test/${++n}`;
    blobs.set(href, blob);
    return href;
  };
  URL.revokeObjectURL = () => undefined;
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ href: this.href, download: this.download });
  });
});
afterEach(() => server.restore());

/** A statement whose chain and balances are right: a $1,000 deposit, then $600 moved to investment. */
async function aStatement(userId = 'u-1'): Promise<Statement> {
  const deposit = `user:${userId}:deposit`;
  const investment = `user:${userId}:investment`;
  const raw: Array<Omit<StatementEntry, 'prevHash' | 'hash'>> = [
    {
      seq: 1,
      transactionId: 'tx-1',
      postedAt: '2026-03-02T10:00:00.000Z',
      reason: 'deposit_confirmed',
      memo: 'Deposit',
      postings: [
        { accountId: 'platform:cash', amountCents: -100_000 },
        { accountId: deposit, amountCents: 100_000 },
      ],
    },
    {
      seq: 2,
      transactionId: 'tx-2',
      postedAt: '2026-03-03T10:00:00.000Z',
      reason: 'investment_approved',
      memo: 'Bronze',
      postings: [
        { accountId: deposit, amountCents: -60_000 },
        { accountId: investment, amountCents: 60_000 },
      ],
    },
  ];
  const entries: StatementEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (const e of raw) {
    const hash = await entryHash({ ...e, prevHash });
    entries.push({ ...e, prevHash, hash });
    prevHash = hash;
  }
  return {
    format: 'meridian-statement/1',
    userId,
    from: '2026-03-01T00:00:00.000Z',
    to: '2026-03-31T23:59:59.999Z',
    generatedAt: '2026-04-01T00:00:00.000Z',
    accounts: [
      { accountId: deposit, kind: 'deposit', openingCents: 0, closingCents: 40_000 },
      { accountId: investment, kind: 'investment', openingCents: 0, closingCents: 60_000 },
    ],
    opening: { seq: 0, hash: GENESIS_HASH },
    entries,
    head: { seq: 2, hash: prevHash },
  };
}

const fileOf = (text: string, name: string) => new File([text], name, { type: 'application/json' });

async function openPage() {
  const view = renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
  const section = await screen.findByRole('region', { name: 'Statements' });
  return { ...view, section };
}

describe('statements on /transaction-History', () => {
  it('keeps the history list and adds the Statements section with this month as the default period', async () => {
    const { section } = await openPage();
    expect(await screen.findByText('No records found.')).toBeInTheDocument();
    const month = thisMonth();
    expect(within(section).getByLabelText('From')).toHaveValue(month.from);
    expect(within(section).getByLabelText('To')).toHaveValue(month.to);
    expect(month.from).toMatch(/^\d{4}-\d{2}-01$/);
    for (const name of ['Download PDF', 'Download JSON', 'Download CSV'])
      expect(within(section).getByRole('button', { name })).toBeEnabled();
    expect(
      within(section).getByRole('button', { name: 'Verify the statement just downloaded' }),
    ).toBeDisabled();
  });

  it('asks for the period from the first to the last millisecond of its local days (ISO instants)', () => {
    const q = new URL(`http://x/${statementQuery({ from: '2026-03-01', to: '2026-03-31' }, 'pdf')}`);
    expect(q.pathname).toBe('/users/statement');
    expect(q.searchParams.get('format')).toBe('pdf');
    expect(new Date(q.searchParams.get('from')!).getTime()).toBe(new Date(2026, 2, 1).getTime());
    expect(new Date(q.searchParams.get('to')!).getTime()).toBe(new Date(2026, 3, 1).getTime() - 1);
  });

  it('downloads each format as a file and verifies the JSON just downloaded: intact', async () => {
    const statement = await aStatement();
    const text = JSON.stringify(statement, null, 2);
    server.on('GET users/statement', (call) => {
      const format = new URL(`http://x/${call.url}`).searchParams.get('format');
      if (format === 'json') return [200, text, { 'content-disposition': 'attachment; filename="x.json"' }];
      if (format === 'pdf') return [200, new Blob(['%PDF-1.7 ...'], { type: 'application/pdf' })];
      return [200, 'seq,hash\n1,abc\n'];
    });
    const { section, user } = await openPage();

    await user.click(within(section).getByRole('button', { name: 'Download PDF' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.download).toBe(`meridian-statement-${thisMonth().from}-${thisMonth().to}.pdf`);
    expect(await blobText(blobs.get(saved[0]!.href)!)).toBe('%PDF-1.7 ...');

    await user.click(within(section).getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(saved[1]!.download).toMatch(/\.csv$/);

    await user.click(within(section).getByRole('button', { name: 'Download JSON' }));
    await waitFor(() => expect(saved).toHaveLength(3));
    expect(saved[2]!.download).toBe(`meridian-statement-${thisMonth().from}-${thisMonth().to}.json`);
    expect(await blobText(blobs.get(saved[2]!.href)!)).toBe(text);

    const calls = server.callsTo('GET users/statement');
    expect(calls.map((c) => new URL(`http://x/${c.url}`).searchParams.get('format'))).toEqual([
      'pdf',
      'csv',
      'json',
    ]);
    const month = thisMonth();
    const from = new URL(`http://x/${calls[0]!.url}`).searchParams.get('from')!;
    const [y, m] = month.from.split('-').map(Number);
    expect(new Date(from).getTime()).toBe(new Date(y!, m! - 1, 1).getTime());

    const again = within(section).getByRole('button', { name: 'Verify the statement just downloaded' });
    await waitFor(() => expect(again).toBeEnabled());
    await user.click(again);
    const status = await within(section).findByRole('status');
    expect(status).toHaveTextContent(
      `Statement intact: 2 entries, chain head ${statement.head.hash.slice(0, 12)}…`,
    );
    expect(status).toHaveTextContent(`Checked: ${saved[2]!.download}`);
  });

  it('verifies a chosen file: intact, then NOT intact with one cent altered, listing the problems', async () => {
    const statement = await aStatement();
    const { section, user } = await openPage();
    const input = within(section).getByLabelText('Statement file (JSON)');

    await user.upload(input, fileOf(JSON.stringify(statement), 'march.json'));
    expect(await within(section).findByRole('status')).toHaveTextContent(/^Statement intact: 2 entries/);

    const altered = structuredClone(statement);
    altered.entries[1]!.postings[1]!.amountCents += 1;
    await user.upload(input, fileOf(JSON.stringify(altered), 'march-altered.json'));
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('Statement NOT intact');
    expect(alert).toHaveTextContent('Checked: march-altered.json');
    const problems = within(alert)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Entry 2 .*hash does not match its contents/),
        expect.stringMatching(/postings sum to 0\.01, not zero/),
      ]),
    );
    expect(within(section).queryByText(/Statement intact/)).not.toBeInTheDocument();
  });

  it('says a file that is not JSON is not an intact statement', async () => {
    const { section, user } = await openPage();
    await user.upload(within(section).getByLabelText('Statement file (JSON)'), fileOf('%PDF-1.7', 'x.json'));
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('Statement NOT intact');
    expect(alert).toHaveTextContent(STATEMENT_MESSAGES.notJson);
  });

  it('refuses a period that ends before it starts, and shows the server message of a failed download', async () => {
    server.on('GET users/statement', [400, { message: 'The period is longer than a year.' }]);
    const { section, user } = await openPage();
    const from = within(section).getByLabelText('From');
    await user.clear(from);
    await user.type(from, '2099-01-01');
    await user.click(within(section).getByRole('button', { name: 'Download PDF' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent(STATEMENT_MESSAGES.badPeriod);
    expect(server.callsTo('GET users/statement')).toHaveLength(0);

    await user.clear(from);
    await user.type(from, '2020-01-01');
    await user.click(within(section).getByRole('button', { name: 'Download CSV' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('The period is longer than a year.');
    expect(saved).toHaveLength(0);
  });
});
