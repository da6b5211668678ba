/**
 * Crypto-shredding in investment: the only personal data the service keeps is its
 * directory's name and email, copied sealed from identity's events (and into InvestmentRequested). The
 * answers open them; once the owner's key is destroyed they read '[deleted]' while ids, amounts and
 * statuses stay, and identity's UserDeleted drops the key from the service's cache.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { forgetsDeletedUsersSpec } from '@meridian/held-request/testing/personalDataSpecs';
import { stackPerTest } from '@meridian/held-request/testing/testStack';
import { isSealed, SHREDDED } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { USERS } from '@meridian/held-request/app/userDirectory';
import { COLLECTIONS } from './projections/investmentView.js';
import { ADMIN, caller, startStack } from './testing/harness.js';

const NAME = 'Ivan Shredded-Investor';
const EMAIL = 'ivan.shredded@example.com';

const stack = stackPerTest(startStack);

const get = (investmentId: string) =>
  stack.call('getInvestment', { caller: caller(ADMIN.userId), callerRole: 'admin', investmentId });

it('keeps names sealed, answers them opened, and reads [deleted] after the key is shredded', async () => {
  const u = `user-${randomUUID()}`;
  const { personalData } = stack;
  await stack.registerUser(u, await personalData.seal(u, NAME), await personalData.seal(u, EMAIL));
  await waitFor(async () => (await stack.store.get(USERS, u)) !== null, 'directory');
  await stack.fund(u, '300');
  const { investment } = await stack.call('startInvest', {
    caller: caller(u),
    callerRole: 'subscriber',
    callerVerified: true,
    planName: 'Starter',
    amount: '150',
    investmentId: '',
  });
  expect(investment).toMatchObject({ userName: NAME, userEmail: EMAIL, amountCents: 15_000 });
  const id = investment!.investmentId;

  // stored and published sealed
  await stack.service.flushOutbox();
  const requested = await waitFor(
    () => stack.published.find((e) => e.type === 'InvestmentRequested'),
    'InvestmentRequested published',
  );
  expect(isSealed((requested.data as { userEmail: string }).userEmail)).toBe(true);
  const user = (await stack.store.get<{ name: string; email: string }>(USERS, u))!;
  expect(isSealed(user.name) && isSealed(user.email)).toBe(true);
  const raw = JSON.stringify([
    await stack.store.readAll(0, 100_000),
    await stack.store.find(USERS),
    await stack.store.find(COLLECTIONS.investments),
    stack.published,
  ]);
  for (const plain of [NAME, EMAIL]) expect(raw).not.toContain(plain);

  // answered opened to the admin (queue and detail)
  const queue = await stack.call('listPending', { caller: caller(ADMIN.userId), callerRole: 'admin' });
  expect(queue.investments.find((i) => i.investmentId === id)).toMatchObject({
    userName: NAME,
    userEmail: EMAIL,
  });
  const detail = await get(id);

  // the key is destroyed: '[deleted]' where the name and email were; the investment still decides
  await personalData.shred(u);
  expect(await get(id)).toEqual({ ...detail, userName: SHREDDED, userEmail: SHREDDED });
  const approved = await stack.call('approveInvestment', {
    caller: caller(ADMIN.userId),
    callerRole: 'admin',
    investmentId: id,
  });
  expect(approved.investment).toMatchObject({ status: 'Active', amountCents: 15_000, userName: SHREDDED });
});

forgetsDeletedUsersSpec(startStack, { name: NAME, email: EMAIL });
