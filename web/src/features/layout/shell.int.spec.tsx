import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET invest/deposit-maturity': [200, {}] });
});
afterEach(() => {
  server.restore();
  vi.useRealTimers();
});

describe('navbar', () => {
  it('shows the spec links and Login only when logged out', () => {
    renderApp('/plans');
    const nav = within(screen.getByRole('navigation', { name: 'Main' }));
    for (const label of ['Dashboard', 'Plans', 'About', 'Contact', 'Workflow', 'Hierarchy', 'Profile'])
      expect(nav.getByRole('link', { name: label })).toBeInTheDocument();
    expect(nav.getByRole('link', { name: 'Workflow' })).toHaveAttribute('href', '/how-it-works');
    expect(nav.getByRole('link', { name: 'Login' })).toBeInTheDocument();
    expect(nav.queryByRole('button', { name: 'Logout' })).not.toBeInTheDocument();
  });

  it('when logged in shows the name cut to 10 characters and a logout that lands on /login', async () => {
    const user = aUser({ name: 'Bartholomew Jenkins' });
    server.on('GET users/loginStatus', [200, true]);
    server.on('GET users/logout', [200, { message: 'Successfully Logged Out' }]);
    const { user: u, router, store } = renderApp('/plans', { preloadedState: loggedInAs(user) });
    const nav = within(screen.getByRole('navigation', { name: 'Main' }));
    expect(nav.getByText('Bartholome...')).toBeInTheDocument();
    expect(nav.queryByRole('link', { name: 'Login' })).not.toBeInTheDocument();
    await u.click(nav.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(store.getState().auth.isLoggedIn).toBe(false);
  });
});

describe('guards', () => {
  it('sends a logged-out visitor from a logged-in page to /login', async () => {
    const { router } = renderApp('/dashboard');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(screen.getByRole('heading', { name: 'Log in to Meridian' })).toBeInTheDocument();
  });

  it.each([
    {
      what: 're-checks the login status on navigation and lands on /login when the server says no',
      path: '/user-profile',
      loggedIn: false,
      getUser: 'Not authorized, please login',
    },
    {
      what: 'ends the session when any call answers 401',
      path: '/dashboard',
      loggedIn: true,
      getUser: 'Account suspended',
    },
  ])('$what', async ({ path, loggedIn, getUser }) => {
    server.on('GET users/loginStatus', [200, loggedIn]);
    server.on('GET users/getUser', [401, { message: getUser }]);
    const { router } = renderApp(path, { preloadedState: loggedInAs(aUser()) });
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('keeps admin pages from other roles and renders them for admins', async () => {
    server.on('GET users/loginStatus', [200, true]);
    const first = renderApp('/admin-pending-deposit', {
      preloadedState: loggedInAs(aUser({ role: 'author' })),
    });
    expect(screen.getByRole('heading', { name: 'Administrators only' })).toBeInTheDocument();
    first.unmount();
    renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(aUser({ role: 'admin' })) });
    expect(screen.getByRole('heading', { name: 'Pending Deposits' })).toBeInTheDocument();
  });

  it('sends a logged-in user away from /login to the dashboard', async () => {
    const ada = aUser({ name: 'Ada' });
    server.on('GET users/loginStatus', [200, true]);
    server.on('GET users/getUser', [200, ada]);
    const { router } = renderApp('/login', { preloadedState: loggedInAs(ada) });
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('shows the not-found page with a link home', () => {
    renderApp('/definitely/not/here');
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
  });
});

describe('public pages', () => {
  it('home: a 2 s loader with the product name, then the hero, tiers, counters and FAQ', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp('/');
    expect(screen.getByRole('status', { name: 'Loading Meridian' })).toHaveTextContent('Meridian');
    act(() => vi.advanceTimersByTime(1900));
    expect(screen.queryByRole('heading', { level: 1 })).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(100));
    const hero = screen.getByRole('heading', { level: 1 }).closest('section')!;
    expect(within(hero).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(screen.getByText('0.4% advisory fee')).toBeInTheDocument();
    expect(screen.getByText('3.25% cash interest')).toBeInTheDocument();
    expect(screen.getByText('0.2-0.4% advisory fee')).toBeInTheDocument();
    expect(screen.getByText('3.75% cash interest')).toBeInTheDocument();
    expect(screen.getByText('$100,000')).toBeInTheDocument();
    expect(screen.getByText('$500,000')).toBeInTheDocument();
    expect(screen.getByText(/typically arrive within 1-2 business days/)).toBeInTheDocument();
    expect(screen.getByText(/earn up to \$5/)).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(2100));
    expect(screen.getByTestId('counter-Dollars invested')).toHaveTextContent('$5,000,000');
    expect(screen.getByTestId('counter-Profit paid out')).toHaveTextContent('$3,000,000');
    expect(screen.getByTestId('counter-Transactions reviewed')).toHaveTextContent('1,000,000');
    expect(screen.getByTestId('counter-Hidden fees')).toHaveTextContent('0');
  });

  it('plans: the six static plans with their ranges', () => {
    renderApp('/plans');
    const expected = {
      Starter: '$100-$500',
      Bronze: '$500-$1,500',
      Silver: '$2,000-$5,000',
      Gold: '$5,000-$10,000',
      Diamond: '$10,000-$50,000',
      Platinum: '$50,000-$100,000',
    };
    for (const [name, range] of Object.entries(expected)) {
      const card = screen.getByRole('article', { name });
      expect(within(card).getByText(range)).toBeInTheDocument();
      expect(within(card).getAllByRole('listitem').length).toBeGreaterThan(2);
    }
  });

  it('hierarchy: four badges; contact: a form with name, email and message', () => {
    const first = renderApp('/Hierarchy');
    for (const badge of ['Member', 'Leader', 'Expert', 'Master'])
      expect(screen.getByRole('heading', { name: badge })).toBeInTheDocument();
    first.unmount();
    renderApp('/contact');
    const form = within(screen.getByRole('form', { name: 'Contact' }));
    for (const field of ['Name', 'Email', 'Message']) expect(form.getByLabelText(field)).toBeInTheDocument();
  });
});
