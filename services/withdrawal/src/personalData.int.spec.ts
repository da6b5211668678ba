/**
 * Crypto-shredding in withdrawal: the wallet address is sealed with its owner's key when
 * the withdrawal is requested; the events (stored and published) and the read model hold only the sealed
 * value, the answers open it (and the directory's name and email), and once the key is destroyed they read
 * '[deleted]' while ids, amounts and statuses stay and the money still moves.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { forgetsDeletedUsersSpec } from '@meridian/held-request/testing/personalDataSpecs';
import { stackPerTest } from '@meridian/held-request/testing/testStack';
import { isSealed, SHREDDED, USER_DELETED_MESSAGE } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { USERS } from '@meridian/held-request/app/userDirectory';
import { type WithdrawalDoc, withdrawalView } from './projections/withdrawalView.js';
import { ADMIN, WALLET, caller, grpcError, startStack } from './testing/harness.js';

const OTHER_WALLET = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const NAME = 'Wanda Shredded-Payout';
const EMAIL = 'wanda.shredded@example.com';

const stack = stackPerTest(startStack);

const request = (userId: string, amount: string, wallet: string, withdrawalId: string) =>
  stack.answer(userId, amount, withdrawalId, wallet);
/** Registers the user as identity would (name and email sealed with the user's key), once in the directory. */
async function register(userId: string) {
  const { personalData } = stack;
  await stack.registerUser(
    userId,
    await personalData.seal(userId, NAME),
    await personalData.seal(userId, EMAIL),
  );
  await waitFor(async () => (await stack.store.get(USERS, userId)) !== null, 'directory');
}
const pending = async (id: string) =>
  (await stack.call('listPending', { caller: caller(ADMIN.userId), callerRole: 'admin' })).withdrawals.find(
    (w) => w.withdrawalId === id,
  );

it('keeps the wallet address sealed, answers it opened, and reads [deleted] after the key is shredded', async () => {
  const u = `user-${randomUUID()}`;
  const { personalData } = stack;
  await register(u);
  await stack.fund(u, '300');
  const id = `wd-${randomUUID()}`;
  const answered = await request(u, '120', ` ${WALLET} `, id);
  expect(answered.withdrawal).toMatchObject({ withdrawalId: id, walletAddress: WALLET, network: 'evm' });
  // a retry with the same terms is the same request; another address under the same id is refused
  expect((await request(u, '120', WALLET, id)).withdrawal).toMatchObject({ withdrawalId: id });
  expect(await grpcError(request(u, '120', OTHER_WALLET, id))).toMatchObject({
    details: 'This withdrawal already exists',
  });

  // stored sealed: the read model, every stored event, every published event
  const doc = (await stack.store.get<WithdrawalDoc>(withdrawalView.collection, id))!;
  expect(isSealed(doc.walletAddress)).toBe(true);
  expect(await stack.decide('approve', id, ADMIN)).toBeDefined();
  await stack.service.flushOutbox();
  await waitFor(() => stack.published.some((e) => e.type === 'WithdrawalApproved'), 'approval published');
  const requested = stack.published.find((e) => e.type === 'WithdrawalRequested')!;
  expect(isSealed((requested.data as { walletAddress: string }).walletAddress)).toBe(true);
  const raw = JSON.stringify([
    await stack.store.readAll(0, 100_000),
    await stack.store.find(withdrawalView.collection),
    await stack.store.find(USERS),
    stack.published,
  ]);
  for (const plain of [WALLET, NAME, EMAIL]) expect(raw).not.toContain(plain);

  // answered opened: the owner's history and the admin's detail
  const history = await stack.call('listUserWithdrawals', { caller: caller(u), callerRole: 'subscriber' });
  expect(history.withdrawals).toEqual([
    expect.objectContaining({ withdrawalId: id, walletAddress: WALLET, status: 'Approved' }),
  ]);
  const detail = await stack.call('getWithdrawal', {
    caller: caller(ADMIN.userId),
    callerRole: 'admin',
    withdrawalId: id,
  });
  expect(detail).toMatchObject({
    userName: NAME,
    userEmail: EMAIL,
    walletAddress: WALLET,
    amountCents: 12_000,
  });

  // the key is destroyed: personal fields read '[deleted]', ids, amounts and statuses stay
  await personalData.shred(u);
  const after = await stack.call('getWithdrawal', {
    caller: caller(ADMIN.userId),
    callerRole: 'admin',
    withdrawalId: id,
  });
  expect(after).toEqual({ ...detail, userName: SHREDDED, userEmail: SHREDDED, walletAddress: SHREDDED });
  expect(await stack.balances(u)).toMatchObject({ profitCents: 18_000, withdrawalHoldCents: 0 });
});

it('the same request sent several times at once is recorded once: retries compare a keyed hash, not the sealed value', async () => {
  const u = `user-${randomUUID()}`;
  await register(u);
  await stack.fund(u, '300');
  const id = `wd-${randomUUID()}`;
  // nothing recorded yet when they start: each seals the address differently, none may be taken for another request
  const answers = await Promise.all([1, 2, 3, 4].map(() => request(u, '120', WALLET, id)));
  for (const a of answers)
    expect(a.withdrawal).toMatchObject({ withdrawalId: id, walletAddress: WALLET, amountCents: 12_000 });
  const submitted = (await stack.store.readAll(0, 100_000)).filter(
    (e) => e.type === 'WithdrawalSubmitted' && (e.data as { withdrawalId: string }).withdrawalId === id,
  );
  expect(submitted).toHaveLength(1);
  const data = submitted[0]!.data as { walletAddress: string; walletAddressHash: string };
  expect(isSealed(data.walletAddress)).toBe(true);
  expect(data.walletAddressHash).toBe(await stack.personalData.digest(u, WALLET));
  expect(JSON.stringify(data)).not.toContain(WALLET);
  // held once; a concurrent request with another address under the same id is still refused
  expect(await stack.balances(u)).toMatchObject({ profitCents: 18_000, withdrawalHoldCents: 12_000 });
  const mixed = await Promise.allSettled([
    request(u, '120', WALLET, id),
    request(u, '120', OTHER_WALLET, id),
  ]);
  expect(mixed[0]).toMatchObject({ status: 'fulfilled' });
  expect(await grpcError(Promise.reject((mixed[1] as PromiseRejectedResult).reason))).toMatchObject({
    details: 'This withdrawal already exists',
  });
  // the hash stays the service's own: the published WithdrawalRequested does not carry it
  await stack.service.flushOutbox();
  const published = await waitFor(
    () => stack.published.find((e) => e.type === 'WithdrawalRequested'),
    'WithdrawalRequested published',
  );
  expect(published.data).not.toHaveProperty('walletAddressHash');
});

it("a deleted user's wallet address is never sealed again: their request is refused, no key is made", async () => {
  const u = `user-${randomUUID()}`;
  await register(u);
  await stack.fund(u, '300');
  await stack.personalData.shred(u);
  expect(await grpcError(request(u, '120', WALLET, `wd-${randomUUID()}`))).toMatchObject({
    details: USER_DELETED_MESSAGE,
  });
  expect(await stack.personalData.key(u)).toBeNull();
  expect(await stack.balances(u)).toMatchObject({ profitCents: 30_000, withdrawalHoldCents: 0 });
});

it('a pending withdrawal of a shredded user stays decidable; the queue shows [deleted]', async () => {
  const u = `user-${randomUUID()}`;
  await stack.registerUser(
    u,
    await stack.personalData.seal(u, NAME),
    await stack.personalData.seal(u, EMAIL),
  );
  await stack.fund(u, '100');
  const id = `wd-${randomUUID()}`;
  await request(u, '60', WALLET, id);
  expect(await pending(id)).toMatchObject({ userName: NAME, walletAddress: WALLET });
  await stack.personalData.shred(u);
  expect(await pending(id)).toMatchObject({
    userName: SHREDDED,
    userEmail: SHREDDED,
    walletAddress: SHREDDED,
    amountCents: 6_000,
  });
  await stack.decide('reject', id, ADMIN);
  expect(await stack.balances(u)).toMatchObject({ profitCents: 10_000, withdrawalHoldCents: 0 });
});

forgetsDeletedUsersSpec(startStack, { name: NAME, email: EMAIL });
