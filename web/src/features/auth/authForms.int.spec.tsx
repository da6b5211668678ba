import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../../app/browser';
import { fakeApi } from '../../test/fakeApi';
import { aUser, clickThenSee, renderApp, submitShowsAlert } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({
    'GET countries': [
      200,
      [
        { name: 'Kenya', code: 'KE' },
        { name: 'Canada', code: 'CA' },
      ],
    ],
    'GET invest/deposit-maturity': [200, {}],
    'GET users/loginStatus': [200, true],
  });
});
afterEach(() => {
  server.restore();
  vi.useRealTimers();
});

async function submit(name: RegExp) {
  fireEvent.click(screen.getByRole('button', { name }));
}

describe('login screen', () => {
  it('shows the required and email texts and sends nothing', async () => {
    const { user } = renderApp('/login');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('All fields are required');
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please enter a valid email');
    expect(server.callsTo('POST users/login')).toHaveLength(0);
  });

  it("logs in, toasts 'Login Successful' and lands on the dashboard", async () => {
    const ada = aUser({ name: 'Ada' });
    server.on('POST users/login', [200, ada]);
    server.on('GET users/getUser', [200, ada]);
    const { user, router } = renderApp('/login');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'Secret1!');
    await clickThenSee(user, [['Log in', 'Login Successful']]);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByRole('heading', { name: 'Welcome, Ada' })).toBeInTheDocument();
    expect(server.callsTo('POST users/login')[0]!.body).toEqual({
      email: 'ada@example.com',
      password: 'Secret1!',
    });
  });

  /** Ada logs in from a browser the server does not know; sendLoginCode answers `send`; the code screen opens. */
  async function loginFromNewBrowser(send: [number, { message: string }]) {
    server.on('POST users/login', [400, { message: 'New browser or device detected' }]);
    server.on('POST users/sendLoginCode/ada%40example.com', send);
    const app = renderApp('/login');
    await app.user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await app.user.type(screen.getByLabelText('Password'), 'Secret1!');
    await app.user.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/loginWithCode/ada%40example.com'));
    return app;
  }

  it("on 'New browser' sends a login code and goes to /loginWithCode/{email}", async () => {
    const { store } = await loginFromNewBrowser([200, { message: 'Access code sent to your email' }]);
    expect(store.getState().auth.twoFactor).toBe(true);
    expect(await screen.findByText('Access code sent to your email')).toBeInTheDocument();
    expect(screen.getByText('New browser or device detected')).toBeInTheDocument();
    expect(server.callsTo('POST users/sendLoginCode/ada%40example.com')).toHaveLength(1);
  });

  it('a login code the server refused to send: the code screen says no code was emailed, until a resend works', async () => {
    const { user } = await loginFromNewBrowser([
      429,
      { message: 'Too many attempts. Please try again later' },
    ]);
    const subtitle = () => screen.getByText(/We do not recognise this browser/);
    await waitFor(() =>
      expect(subtitle()).toHaveTextContent(
        'We do not recognise this browser, and no code could be emailed to ada@example.com: Too many attempts. Please try again later.',
      ),
    );
    server.on('POST users/sendLoginCode/ada%40example.com', [200, { message: 'Access code sent' }]);
    await user.click(screen.getByRole('button', { name: 'Resend code' }));
    await waitFor(() =>
      expect(subtitle()).toHaveTextContent(
        'We do not recognise this browser. We emailed a 6-character code to ada@example.com.',
      ),
    );
  });

  it('a wrong password shows the server message as an error toast', async () => {
    server.on('POST users/login', [400, { message: 'Invalid email or password' }]);
    const { user, router } = renderApp('/login');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await clickThenSee(user, [['Log in', 'Invalid email or password']]);
    expect(router.state.location.pathname).toBe('/login');
  });
});

describe('register screen', () => {
  async function fill(user: ReturnType<typeof renderApp>['user'], values: Partial<Record<string, string>>) {
    const labels: Record<string, string> = {
      name: 'Full name',
      email: 'Email',
      phone: 'Phone',
      password: 'Password',
      password2: 'Confirm password',
    };
    for (const [key, value] of Object.entries(values)) {
      if (key === 'country') await user.selectOptions(await screen.findByLabelText('Country'), value!);
      else await user.type(screen.getByLabelText(labels[key]!), value!);
    }
  }

  it('shows each validation text in turn', async () => {
    const { user } = renderApp('/register');
    await screen.findByRole('option', { name: 'Kenya' });
    await submit(/create account/i);
    expect(await screen.findByRole('alert')).toHaveTextContent('All fields are required');
    await fill(user, {
      name: 'Ada',
      email: 'bad',
      phone: '123',
      country: 'Kenya',
      password: 'Ab1!',
      password2: 'Ab1!',
    });
    await submit(/create account/i);
    expect(screen.getByRole('alert')).toHaveTextContent('Password must be up to 6 characters');
    await user.type(screen.getByLabelText('Password'), 'cdef');
    await submit(/create account/i);
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email');
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await submit(/create account/i);
    expect(screen.getByRole('alert')).toHaveTextContent('Passwords do not match');
    expect(server.callsTo('POST users/register')).toHaveLength(0);
  });

  it('blocks paste into confirm password with the spec text', async () => {
    renderApp('/register');
    const confirm = screen.getByLabelText('Confirm password');
    const notPrevented = fireEvent.paste(confirm, { clipboardData: { getData: () => 'Secret1!' } });
    expect(notPrevented).toBe(false);
    expect(await screen.findByText('Cannot paste into input field')).toBeInTheDocument();
    expect(confirm).toHaveValue('');
  });

  it('ticks the live checklist as the password grows', async () => {
    const { user } = renderApp('/register');
    const list = screen.getByRole('list', { name: 'Password requirements' });
    const met = () =>
      Array.from(list.querySelectorAll('[data-ok="true"]')).map((li) =>
        li.textContent?.replace(/ \((not )?met\)/, ''),
      );
    expect(met()).toEqual([]);
    await user.type(screen.getByLabelText('Password'), 'a');
    expect(met()).toEqual(['Lower case letter']);
    await user.type(screen.getByLabelText('Password'), 'B1');
    expect(met()).toEqual(['Upper case letter', 'Lower case letter', 'Number (0-9)']);
    await user.type(screen.getByLabelText('Password'), '!xy');
    expect(met()).toHaveLength(5);
  });

  it('prefills the referral code from ?ref= and registers with every field', async () => {
    const ada = aUser({ name: 'Ada' });
    server.on('POST users/register', [201, ada]);
    server.on('GET users/getUser', [200, ada]);
    const { user, router } = renderApp('/register?ref=FRIEND42');
    expect(screen.getByLabelText(/Referral code/)).toHaveValue('FRIEND42');
    await fill(user, {
      name: 'Ada',
      email: 'ada@example.com',
      phone: '+254 700',
      country: 'Kenya',
      password: 'Secret1!',
      password2: 'Secret1!',
    });
    await submit(/create account/i);
    expect(await screen.findByText('Registration Successful')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(server.callsTo('POST users/register')[0]!.body).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      phone: '+254 700',
      country: 'Kenya',
      password: 'Secret1!',
      referralCode: 'FRIEND42',
    });
  });

  it('says so when countries cannot be fetched and lets the user type one', async () => {
    server.on('GET countries', [500, { message: 'boom' }]);
    renderApp('/register');
    expect(
      await screen.findByText('Failed to fetch countries. Please try again later.', {
        selector: '.Toastify *',
      }),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Country').tagName).toBe('INPUT');
  });
});

describe('forgot, reset, login code and verify screens', () => {
  it('forgot: empty, invalid, then sends the email and shows the server message', async () => {
    server.on('POST users/forgotPassword', [200, { message: 'Reset email sent' }]);
    const { user } = renderApp('/forgot');
    await submitShowsAlert(user, 'Get reset email', 'Please enter an email');
    await user.type(screen.getByLabelText('Email'), 'ada@');
    await submitShowsAlert(user, 'Get reset email', 'Please enter a valid email');
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Get reset email' }));
    expect(await screen.findAllByText('Reset email sent')).not.toHaveLength(0);
    expect(server.callsTo('POST users/forgotPassword')[0]!.body).toEqual({ email: 'ada@example.com' });
  });

  it('reset: length and match, then PATCH with the token and go to /login', async () => {
    server.on('PATCH users/resetPassword/tok-1', [
      200,
      { message: 'Password Reset Successful, please login' },
    ]);
    const { user, router } = renderApp('/resetPassword/tok-1');
    await user.type(screen.getByLabelText('New password'), '12345');
    await user.type(screen.getByLabelText('Confirm new password'), '12345');
    await submitShowsAlert(user, 'Reset password', 'Password must be up to 6 characters');
    await user.type(screen.getByLabelText('New password'), '6');
    await submitShowsAlert(user, 'Reset password', 'Passwords do not match');
    await user.type(screen.getByLabelText('Confirm new password'), '6');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(server.callsTo('PATCH users/resetPassword/tok-1')[0]!.body).toEqual({ password: '123456' });
    expect(await screen.findByText('Password Reset Successful, please login')).toBeInTheDocument();
  });

  it('login code: empty, wrong length, resend, then logs in and shows the server message', async () => {
    const ada = aUser({ name: 'Ada' });
    server.on('POST users/loginWithCode/ada%40example.com', [200, { ...ada, message: 'Login successful' }]);
    server.on('POST users/sendLoginCode/ada%40example.com', [200, { message: 'Access code sent' }]);
    server.on('GET users/getUser', [200, ada]);
    const { user, router, store } = renderApp('/loginWithCode/ada%40example.com');
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    await submitShowsAlert(user, 'Proceed to login', 'Please fill in the login code');
    await user.type(screen.getByLabelText('Access code'), '12345');
    await submitShowsAlert(user, 'Proceed to login', 'Access code must be 6 characters');
    await clickThenSee(user, [['Resend code', 'Access code sent']]);
    await user.type(screen.getByLabelText('Access code'), '6');
    await user.click(screen.getByRole('button', { name: 'Proceed to login' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByText('Login successful')).toBeInTheDocument();
    expect(server.callsTo('POST users/loginWithCode/ada%40example.com')[0]!.body).toEqual({
      loginCode: '123456',
    });
    expect(store.getState().auth.user?.name).toBe('Ada');
  });

  it('verify: PATCH verifyUser, then a full load of /upload-kyc after 3 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const reload = vi.spyOn(browser, 'reloadTo').mockImplementation(() => undefined);
    server.on('PATCH users/verifyUser/vt-9', [200, { message: 'Account Verification Successful' }]);
    renderApp('/verify/vt-9');
    expect(await screen.findByText(/Taking you there in a moment/)).toBeInTheDocument();
    expect(
      screen.getByText('Account Verification Successful', { selector: '.form-success' }),
    ).toBeInTheDocument();
    await act(async () => {});
    act(() => vi.advanceTimersByTime(2900));
    expect(reload).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(200));
    expect(reload).toHaveBeenCalledWith('/upload-kyc');
    expect(server.callsTo('PATCH users/verifyUser/vt-9')).toHaveLength(1);
  });

  it('verify: a failed link shows the server message and never redirects', async () => {
    const reload = vi.spyOn(browser, 'reloadTo').mockImplementation(() => undefined);
    server.on('PATCH users/verifyUser/old', [400, { message: 'Invalid or Expired Token' }]);
    renderApp('/verify/old');
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid or Expired Token');
    expect(reload).not.toHaveBeenCalled();
  });
});

describe('sign-in through an identity provider', () => {
  const providers = [
    { id: 'test-idp', name: 'Test IdP' },
    { id: 'google', name: 'Google' },
  ];

  it.each(['/login', '/register'])(
    '%s offers "Continue with <name>" for each configured provider',
    async (path) => {
      server.on('GET auth/providers', [200, providers]);
      renderApp(path);
      const google = await screen.findByRole('link', { name: 'Continue with Google' });
      expect(google).toHaveAttribute('href', '/api/auth/oidc/google/start');
      expect(screen.getByRole('link', { name: 'Continue with Test IdP' })).toHaveAttribute(
        'href',
        '/api/auth/oidc/test-idp/start',
      );
    },
  );

  it('offers none when none is configured', async () => {
    server.on('GET auth/providers', [200, []]);
    renderApp('/login');
    await waitFor(() => expect(server.callsTo('GET auth/providers')).toHaveLength(1));
    await act(async () => {});
    expect(screen.queryByRole('link', { name: /Continue with/ })).not.toBeInTheDocument();
    expect(screen.queryByText('or')).not.toBeInTheDocument();
  });

  it("shows why a provider's sign-in was refused (the callback's ?error=)", async () => {
    server.on('GET auth/providers', [200, providers]);
    renderApp('/login?error=email_not_verified');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The provider has not verified your email address. Verify it there, or log in with your password.',
    );
  });

  it('words a reason it does not know too', async () => {
    renderApp('/login?error=something_new');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Signing in through the provider failed. Please try again.',
    );
  });
});
