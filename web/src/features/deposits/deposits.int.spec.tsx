import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { aUser, clickThenSee, loggedInAs, renderApp } from '../../test/render';
import { admin, pendingDeposit } from '../../test/people';

const server = fakeApiEachTest();

describe('/deposit-payment', () => {
  it('requires an amount', async () => {
    const { user } = renderApp('/deposit-payment', { preloadedState: loggedInAs(aUser()) });
    await user.click(screen.getByRole('button', { name: 'Submit deposit' }));
    expect(screen.getByText('Please enter the amount.')).toBeInTheDocument();
    expect(server.callsTo('POST payments/create')).toHaveLength(0);
  });
});

describe('/admin-pending-deposit', () => {
  it('lists pending deposits with name, email, dollars and a link, and toasts the fetch', async () => {
    server.on('GET payments/pending-deposit', [
      200,
      {
        deposit: [{ ...pendingDeposit, _id: 'd1', amount: 12345.6 }],
      },
    ]);
    renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending deposits' });
    expect(within(list).getByText('Ada Lovelace')).toBeInTheDocument();
    expect(within(list).getByText('ada@example.com')).toBeInTheDocument();
    expect(within(list).getByText('$12,345.60')).toBeInTheDocument();
    expect(within(list).getByText('Pending')).toBeInTheDocument();
    expect(within(list).getByRole('link', { name: 'Review deposit' })).toHaveAttribute(
      'href',
      '/transaction/t1',
    );
    expect(await screen.findByText('Pending deposits fetched successfully!')).toBeInTheDocument();
  });
});

describe('/transaction/:transactionId', () => {
  const pending = pendingDeposit;

  it('confirms with notes and updates the status', async () => {
    server.on('GET payments/viewPaymentStatus/t1', [200, pending]);
    server.on('PATCH payments/confirmPayment', [200, { message: 'Payment confirmed' }]);
    const { user } = renderApp('/transaction/t1', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('$1,500.00')).toBeInTheDocument();
    await user.type(screen.getByLabelText(/Notes/), 'Seen on chain');
    await user.click(screen.getByRole('button', { name: 'Confirm payment' }));
    expect(await screen.findByText('Payment confirmed')).toBeInTheDocument();
    expect(server.callsTo('PATCH payments/confirmPayment')[0]!.body).toEqual({
      transactionId: 't1',
      status: 'Confirmed',
      notes: 'Seen on chain',
    });
    expect(screen.getByText('Confirmed')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reject payment' })).not.toBeInTheDocument();
  });

  it("says 'Failed to confirm payment' / 'Failed to reject payment'", async () => {
    server.on('GET payments/viewPaymentStatus/t1', [200, pending]);
    server.on('PATCH payments/confirmPayment', [409, { message: 'Deposit already decided' }]);
    server.on('PATCH payments/rejectPayment', [500, {}]);
    const { user } = renderApp('/transaction/t1', { preloadedState: loggedInAs(admin) });
    await clickThenSee(user, [
      ['Confirm payment', 'Failed to confirm payment'],
      ['Reject payment', 'Failed to reject payment'],
    ]);
    expect(server.callsTo('PATCH payments/rejectPayment')[0]!.body).toEqual({
      transactionId: 't1',
      status: 'Rejected',
      notes: '',
    });
  });

  it("says 'Error fetching payment status.' when the call fails and 'Failed to fetch payment status' when it answers nothing", async () => {
    server.on('GET payments/viewPaymentStatus/t1', [500, {}]);
    renderApp('/transaction/t1', { preloadedState: loggedInAs(admin) });
    expect((await screen.findAllByText('Error fetching payment status.')).length).toBeGreaterThan(0);
  });

  it("says 'Failed to fetch payment status' for an empty answer", async () => {
    server.on('GET payments/viewPaymentStatus/t2', [200, null]);
    renderApp('/transaction/t2', { preloadedState: loggedInAs(admin) });
    expect((await screen.findAllByText('Failed to fetch payment status')).length).toBeGreaterThan(0);
  });
});
