/**
 * GET api/admin/queueStats: the size of every admin queue in one call, from the counters the
 * services keep in their read models; admin only (an investor 403, nobody 401). The counts move as items
 * are requested and decided.
 */
import { describe, expect, it } from 'vitest';
import { verifiedUser, type TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import { confirmDeposit, fundedInvestor, requestDeposit, waitFor } from './testing/money.js';
import { sharedForSpec, startMoneyAdmin } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
sharedForSpec(startMoneyAdmin, (s) => void ({ t, admin } = s));

type Stats = { deposits: number; investments: number; withdrawals: number; kyc: number };

async function stats(): Promise<Stats> {
  const res = await admin.get('/api/admin/queueStats');
  expect(res.status).toBe(200);
  return res.body as Stats;
}

describe('GET api/admin/queueStats', () => {
  it('answers the admin every queue size, moved by requests and decisions', async () => {
    const before = await stats();
    expect(Object.keys(before).sort()).toEqual(['deposits', 'investments', 'kyc', 'withdrawals']);
    for (const v of Object.values(before)) expect(Number.isInteger(v) && v >= 0).toBe(true);

    const investor = await fundedInvestor(t.url, admin, 1000);
    const first = await requestDeposit(investor.browser, 25);
    await requestDeposit(investor.browser, 30);
    expect((await stats()).deposits).toBe(before.deposits + 2);
    // the same as the queue holds
    const queue = await admin.get('/api/payments/pending-deposit');
    expect((queue.body as { deposit: unknown[] }).deposit).toHaveLength(before.deposits + 2);

    await confirmDeposit(admin, first);
    expect((await stats()).deposits).toBe(before.deposits + 1);

    const invested = await investor.browser.post('/api/invest/start-invest', {
      planName: 'Starter',
      amount: 100,
    });
    expect(invested.status).toBe(201);
    // an investment joins the queue once the ledger holds its funds
    await waitFor(async () => ((await stats()).investments === before.investments + 1 ? true : null), {
      timeoutMs: 15_000,
      message: 'investment counted',
    });
    const after = await stats();
    expect(after).toEqual({ ...before, deposits: before.deposits + 1, investments: before.investments + 1 });
  });

  it('refuses an investor (403) and nobody (401)', async () => {
    const investor = await verifiedUser(t.url);
    expect(await investor.browser.get('/api/admin/queueStats')).toMatchObject({
      status: 403,
      body: { message: expect.any(String) },
    });
    const anonymous = await verifiedUser(t.url);
    await anonymous.browser.get('/api/users/logout');
    expect((await anonymous.browser.get('/api/admin/queueStats')).status).toBe(401);
  });
});
