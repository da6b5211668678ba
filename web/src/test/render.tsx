import { act, render, screen } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { MemoryRouter, useLocation, type Location } from 'react-router-dom';
import { expect, vi } from 'vitest';
import { AppRoutes } from '../app/router';
import { makeStore, type RootState } from '../app/store';
import { initialAuthState, type AuthState } from '../features/auth/authSlice';
import type { User } from '../features/auth/authTypes';
import type { LiveSocket, SocketFactory } from '../features/live/live.saga';
import { eventReceived, type LiveEvent } from '../features/live/liveSlice';

export function aUser(overrides: Partial<User> = {}): User {
  return {
    _id: `u-${Math.random().toString(36).slice(2, 10)}`,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    country: 'United Kingdom',
    bio: '',
    photo: '',
    role: 'subscriber',
    isVerified: true,
    kycStatus: 'pending',
    balance: 1234.5,
    investmentBalance: 25000,
    totalMaturityAmount: 987654.321,
    referralCode: 'ADA123',
    isImpersonated: false,
    ...overrides,
  };
}

/** A socket that never connects, so component tests open no network. */
export function idleSocket(): LiveSocket {
  return { on: () => undefined, onAny: () => undefined, emit: () => undefined, disconnect: () => undefined };
}

export function authState(overrides: Partial<AuthState> = {}): AuthState {
  return { ...initialAuthState, sessionStatus: 'checked', ...overrides };
}

export function loggedInAs(user: User): Partial<RootState> {
  return { auth: authState({ isLoggedIn: true, user }) };
}

export interface RenderAppOptions {
  preloadedState?: Partial<RootState>;
  timers?: boolean;
  /** The live socket (default: one that never connects). */
  createSocket?: SocketFactory;
}

const rendered = new Set<{ stopSagas(): void }>();

/** Stops the sagas of every store rendered so far (called after each test by setup.ts). */
export function stopRenderedApps(): void {
  for (const store of rendered) store.stopSagas();
  rendered.clear();
}

function LocationProbe({ onLocation }: { onLocation: (location: Location) => void }) {
  onLocation(useLocation());
  return null;
}

/** Renders the real route table at `path` with a fresh store. */
export function renderApp(
  path: string,
  {
    preloadedState = { auth: authState() },
    timers = false,
    createSocket = idleSocket,
  }: RenderAppOptions = {},
) {
  const store = makeStore({ preloadedState, createSocket });
  rendered.add(store);
  // What the tests read of the router: the current location (router.state.location.pathname).
  const router = { state: { location: undefined as unknown as Location } };
  const onLocation = (location: Location) => {
    router.state.location = location;
  };
  const user = userEvent.setup(timers ? { advanceTimers: vi.advanceTimersByTime.bind(vi) } : {});
  const view = render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <AppRoutes />
        <LocationProbe onLocation={onLocation} />
      </MemoryRouter>
    </Provider>,
  );
  return { store, router, user, ...view };
}

/** Delivers live pushes to a rendered app's store, in one act, as the socket would. */
export function pushLive(store: { dispatch(action: unknown): unknown }, ...events: LiveEvent[]): void {
  act(() => {
    for (const event of events) store.dispatch(eventReceived(event));
  });
}

/** Asserts that `scope` (default: the whole screen) has a link of each name, going to its href. */
export function expectLinks(
  links: Record<string, string>,
  scope: Pick<typeof screen, 'getByRole'> = screen,
): void {
  for (const [name, href] of Object.entries(links))
    expect(scope.getByRole('link', { name })).toHaveAttribute('href', href);
}

/** Clicks each button in turn, once it is there, and asserts that the text then shows. */
export async function clickThenSee(
  user: UserEvent,
  steps: Array<[button: string, text: string]>,
): Promise<void> {
  for (const [name, text] of steps) {
    await user.click(await screen.findByRole('button', { name }));
    expect(await screen.findByText(text)).toBeInTheDocument();
  }
}

/** Submits the form with its button `button` and expects the form's alert to say `text`. */
export async function submitShowsAlert(
  user: UserEvent,
  button: string,
  text: string | RegExp,
): Promise<void> {
  await user.click(screen.getByRole('button', { name: button }));
  expect(screen.getByRole('alert')).toHaveTextContent(text);
}
