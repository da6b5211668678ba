import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

function clipboard(writeText: (t: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
}

describe('/referrals', () => {
  it("shows the empty text for { message: 'No referrals' } and the own code with a share link", async () => {
    server.on('GET users/referrals', [200, { message: 'No referrals' }]);
    renderApp('/referrals', { preloadedState: loggedInAs(aUser({ referralCode: 'ADA123' })) });
    expect(await screen.findByText('No Referrals yet, Refer a friend and earn up to $5')).toBeInTheDocument();
    expect(screen.getByTestId('referral-code')).toHaveTextContent('ADA123');
    expect(screen.getByLabelText('Share link')).toHaveValue(`${window.location.origin}/register?ref=ADA123`);
  });

  it('lists referred people', async () => {
    server.on('GET users/referrals', [
      200,
      {
        referrals: [
          {
            _id: 'r1',
            name: 'Grace Hopper',
            email: 'grace@example.com',
            photo: 'http://localhost:8080/api/avatars/default.svg',
          },
        ],
      },
    ]);
    renderApp('/referrals', { preloadedState: loggedInAs(aUser()) });
    const list = await screen.findByRole('list', { name: 'Referrals' });
    expect(within(list).getByText('Grace Hopper')).toBeInTheDocument();
    expect(within(list).getByText('grace@example.com')).toBeInTheDocument();
  });

  it('copies the code, or says it failed', async () => {
    server.on('GET users/referrals', [200, { message: 'No referrals' }]);
    const writeText = vi.fn(async () => undefined);
    clipboard(writeText);
    const { user } = renderApp('/referrals', {
      preloadedState: loggedInAs(aUser({ referralCode: 'ADA123' })),
    });
    clipboard(writeText);
    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await screen.findByText('Referral code copied to clipboard!')).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith('ADA123');
    clipboard(async () => {
      throw new Error('denied');
    });
    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await screen.findByText('Failed to copy referral code.')).toBeInTheDocument();
  });
});
