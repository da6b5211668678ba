/** Review claims on the admin screens (features/claims; the gateway's live/claims.ts). */
import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { ada, pendingDeposit } from '../../test/people';
import { LIVE_EVENTS, type ReviewClaim } from '../live/pushContract';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const me = aUser({ _id: 'admin-1', role: 'admin', name: 'Alice Admin' });
const pending = { _id: 't1', ...pendingDeposit };
const claimBy = (adminId: string, adminName: string, id = 't1'): ReviewClaim => ({
  kind: 'deposit',
  id,
  adminId,
  adminName,
  claimedAt: '2026-03-04T14:06:00Z',
  expiresInMs: 300_000,
  history: [{ action: 'claimed', adminId, adminName, at: '2026-03-04T14:06:00Z' }],
});

describe('claims on /transaction/{id}', () => {
  it('opening the deposit claims it; leaving releases it', async () => {
    server.on('GET payments/viewPaymentStatus/t1', [200, pending]);
    server.on('GET admin/claims', [200, { claims: [] }]);
    server.on('POST admin/claims', [200, { message: 'Claimed', claim: claimBy('admin-1', 'Alice Admin') }]);
    server.on('DELETE admin/claims/deposit/t1', [200, { message: 'Released', released: true }]);
    server.on('GET payments/pending-deposit', [200, { deposit: [] }]);
    const { user } = renderApp('/transaction/t1', { preloadedState: loggedInAs(me) });
    expect(await screen.findByText(/You are reviewing this item/)).toBeInTheDocument();
    expect(server.callsTo('POST admin/claims')[0]!.body).toEqual({ kind: 'deposit', id: 't1' });
    expect(screen.getByRole('button', { name: 'Confirm payment' })).toBeEnabled();
    await user.click(screen.getByRole('link', { name: 'Back to pending deposits' }));
    expect(await screen.findByText('No pending deposits found.')).toBeInTheDocument();
    expect(server.callsTo('DELETE admin/claims/deposit/t1')).toHaveLength(1);
  });

  it('held by another admin: who, decisions disabled, Take over; a live takeover of ours disables them', async () => {
    server.on('GET payments/viewPaymentStatus/t1', [200, pending]);
    server.on('GET admin/claims', [200, { claims: [claimBy('admin-2', 'Bob Backup')] }]);
    server.on('POST admin/claims', [409, { message: 'This item is being reviewed by Bob Backup' }]);
    server.on('POST admin/claims/deposit/t1/takeover', [
      200,
      { message: 'Taken over', claim: claimBy('admin-1', 'Alice Admin') },
    ]);
    const { user, store } = renderApp('/transaction/t1', { preloadedState: loggedInAs(me) });
    expect(await screen.findByText('Being reviewed by Bob Backup')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm payment' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Reject payment' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Take over' }));
    expect(await screen.findByText(/You are reviewing this item/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm payment' })).toBeEnabled();

    // Bob takes it back: pushed to every admin
    pushLive(store, {
      event: LIVE_EVENTS.claimChanged,
      payload: { kind: 'deposit', id: 't1', claim: claimBy('admin-2', 'Bob Backup') },
    });
    expect(await screen.findByText('Being reviewed by Bob Backup')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm payment' })).toBeDisabled();
  });
});

describe('claims on the queues', () => {
  it('a deposit card shows who reviews it, live, and nothing once released', async () => {
    server.on('GET payments/pending-deposit', [200, { deposit: [pending] }]);
    server.on('GET admin/claims', [200, { claims: [] }]);
    const { store } = renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(me) });
    const card = await screen.findByRole('listitem', { name: 'Deposit of $1,500.00 by Ada Lovelace' });
    expect(within(card).queryByText(/Being reviewed by/)).not.toBeInTheDocument();
    pushLive(store, {
      event: LIVE_EVENTS.claimChanged,
      payload: { kind: 'deposit', id: 't1', claim: claimBy('admin-2', 'Bob Backup') },
    });
    expect(await within(card).findByText('Being reviewed by Bob Backup')).toBeInTheDocument();
    pushLive(store, {
      event: LIVE_EVENTS.claimChanged,
      payload: { kind: 'deposit', id: 't1', claim: null },
    });
    expect(within(card).queryByText(/Being reviewed by/)).not.toBeInTheDocument();
  });
});

describe('claims for someone who is not an admin', () => {
  it('an investor viewing their own pending investment asks nothing about claims', async () => {
    server.on('GET invest/investment/i3', [
      200,
      { _id: 'i3', plan: 'Silver', status: 'pending', amount: 2000, maturityAmount: 2400, user: ada },
    ]);
    renderApp('/investment/i3', { preloadedState: loggedInAs(aUser({ _id: 'u-2' })) });
    expect(await screen.findByText('$2,000.00')).toBeInTheDocument();
    expect(server.calls.filter((c) => c.url.startsWith('admin/claims'))).toEqual([]);
    expect(screen.queryByText(/Being reviewed by|You are reviewing/)).not.toBeInTheDocument();
  });
});
