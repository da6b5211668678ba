/**
 * The money lists at scale through the gateway and the real standalone composition:
 * without `limit` / `cursor` every list answers the spec's whole list; with them one page of the same list,
 * the body in the spec's shape and the next page's cursor in X-Next-Cursor (absent on the last page); a bad
 * limit or cursor is a 400 'Invalid cursor or limit'. The history merges its three lists a page at a time.
 */
import { describe, expect, it } from 'vitest';
import type { TestComposition } from './testing/composition.js';
import { fundedInvestor, requestDeposit } from './testing/money.js';
import type { HttpSession } from './testing/httpSession.js';
import { sharedForSpec, startMoneyAdmin } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
sharedForSpec(startMoneyAdmin, (s) => void ({ t, admin } = s));

type Row = { _id: string };
const withCursor = (path: string, limit: number, cursor: string) =>
  `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/** Every page of a list route with `limit`; `field`: where the body holds the list. */
async function walk(
  browser: HttpSession,
  path: string,
  field: string,
  limit: number,
  between: () => Promise<void> = async () => {},
): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '';
  for (;;) {
    const res = await browser.get(withCursor(path, limit, cursor));
    expect(res.status).toBe(200);
    const rows = (res.body as Record<string, Row[]>)[field];
    expect(Array.isArray(rows)).toBe(true);
    expect(rows.length).toBeLessThanOrEqual(limit);
    seen.push(...rows.map((r) => r._id));
    cursor = res.headers.get('x-next-cursor') ?? '';
    if (!cursor) return seen;
    await between();
  }
}

const LISTS = [
  ['/api/payments/pending-deposit', 'admin'],
  ['/api/invest/adminPendingInvestment', 'admin'],
  ['/api/withDraw/pending', 'admin'],
  ['/api/users/kyc/pending', 'admin'],
  ['/api/invest/investment-history', 'user'],
  ['/api/invest/getTransactionHistory', 'user'],
] as const;

describe('paged money lists', () => {
  it('refuses a bad limit or cursor on every list with 400 and a clear message; exposes X-Next-Cursor', async () => {
    const investor = await fundedInvestor(t.url, admin, 100);
    for (const [path, who] of LISTS) {
      const browser = who === 'admin' ? admin : investor.browser;
      for (const query of ['limit=0', 'limit=501', 'limit=abc', 'cursor=nope', 'limit=2&cursor=%7B%7D'])
        expect(await browser.get(`${path}?${query}`), `${path}?${query}`).toMatchObject({
          status: 400,
          body: { message: 'Invalid cursor or limit' },
        });
      const ok = await browser.get(`${path}?limit=500`);
      expect(ok.status, path).toBe(200);
      expect(ok.headers.get('x-next-cursor'), path).toBeNull();
    }
  });

  it('pages the pending deposits (oldest first) by X-Next-Cursor; the bare call is the whole queue', async () => {
    const investor = await fundedInvestor(t.url, admin, 100);
    for (let i = 0; i < 5; i++) await requestDeposit(investor.browser, 10 + i);
    const all = await admin.get('/api/payments/pending-deposit');
    expect(all.status).toBe(200);
    expect(all.body.message).toBe('Pending deposits fetched successfully!');
    expect(all.headers.get('x-next-cursor')).toBeNull();
    const ids = (all.body.deposit as Row[]).map((d) => d._id);
    expect(ids.length).toBeGreaterThanOrEqual(5);

    const added: string[] = [];
    const seen = await walk(admin, '/api/payments/pending-deposit', 'deposit', 2, async () => {
      added.push(await requestDeposit(investor.browser, 1));
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, ids.length)).toEqual(ids);
    expect([...seen.slice(ids.length)].sort()).toEqual([...added].sort());
  });

  it('pages the investment history and the merged transaction history without repeats or gaps', async () => {
    const investor = await fundedInvestor(t.url, admin, 1000);
    for (let i = 0; i < 3; i++) {
      const res = await investor.browser.post('/api/invest/start-invest', {
        planName: 'Bronze',
        amount: 100 + i,
      });
      expect(res.status).toBe(400); // Bronze starts at $500: refused, not listed
      const ok = await investor.browser.post('/api/invest/start-invest', {
        planName: 'Starter',
        amount: 100 + i,
      });
      expect(ok.status).toBe(201);
      await requestDeposit(investor.browser, 5 + i);
    }
    const history = await investor.browser.get('/api/invest/investment-history');
    const investments = (history.body.investments as Row[]).map((i) => i._id);
    expect(investments).toHaveLength(3);
    expect(await walk(investor.browser, '/api/invest/investment-history', 'investments', 2)).toEqual(
      investments,
    );

    const whole = await investor.browser.get('/api/invest/getTransactionHistory');
    expect(whole.headers.get('x-next-cursor')).toBeNull();
    const everything = (whole.body.history as Row[]).map((h) => h._id);
    expect(everything).toHaveLength(1 + 3 + 3); // the funding deposit, three investments, three deposits
    const added: string[] = [];
    const seen = await walk(investor.browser, '/api/invest/getTransactionHistory', 'history', 2, async () => {
      added.push(await requestDeposit(investor.browser, 1));
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...everything].sort());
    const page = await investor.browser.get('/api/invest/getTransactionHistory?limit=3');
    expect(
      (page.body.history as Array<{ type: string }>)
        .map((h) => h.type)
        .every((x) => ['Transaction', 'Investment', 'Withdrawal'].includes(x)),
    ).toBe(true);
  });
});
