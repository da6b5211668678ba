import { describe, expect, it } from 'vitest';
import { aUser } from '../../test/render';
import {
  authReducer,
  initialAuthState,
  loginCodeSubmitted,
  loginStatusChecked,
  loginSubmitted,
  logoutRequested,
  profileUpdateSubmitted,
  registerSubmitted,
  sessionExpired,
  usersRequested,
  type AuthState,
} from './authSlice';

const given = (overrides: Partial<AuthState> = {}): AuthState => ({ ...initialAuthState, ...overrides });
const creds = { email: 'a@b.io', password: 'x' };

describe('auth slice (spec §4)', () => {
  it('a pending call sets loading; success sets isSuccess and stores the user', () => {
    const user = aUser();
    let state = authReducer(given(), loginSubmitted.pending('r1', creds));
    expect(state).toMatchObject({ isLoading: true, isError: false, isSuccess: false });
    state = authReducer(state, loginSubmitted.fulfilled(user, 'r1', creds));
    expect(state).toMatchObject({ isLoading: false, isSuccess: true, isLoggedIn: true, user });
  });

  it("a login failure containing 'New browser' switches on the code step and clears the user", () => {
    const state = authReducer(
      given({ user: aUser(), isLoggedIn: true }),
      loginSubmitted.rejected(null, 'r1', creds, 'New browser or device detected'),
    );
    expect(state).toMatchObject({
      twoFactor: true,
      isError: true,
      isLoggedIn: false,
      user: null,
      message: 'New browser or device detected',
    });
  });

  it('any other login failure stores the message without the code step', () => {
    const state = authReducer(
      given(),
      loginSubmitted.rejected(null, 'r1', creds, 'Invalid email or password'),
    );
    expect(state).toMatchObject({ twoFactor: false, isError: true, message: 'Invalid email or password' });
  });

  it('register failure clears the user', () => {
    const input = { name: 'A', email: 'a@b.io', password: 'x', phone: '1', country: 'K' };
    const state = authReducer(
      given({ user: aUser() }),
      registerSubmitted.rejected(null, 'r', input, 'Email already in use'),
    );
    expect(state).toMatchObject({ user: null, isError: true, message: 'Email already in use' });
  });

  it('login with code stores the user, clears twoFactor and keeps the server message', () => {
    const user = aUser();
    const arg = { email: user.email, loginCode: 'ABC123' };
    const state = authReducer(
      given({ twoFactor: true }),
      loginCodeSubmitted.fulfilled({ user, message: 'Login successful' }, 'r', arg),
    );
    expect(state).toMatchObject({ twoFactor: false, isLoggedIn: true, user, message: 'Login successful' });
  });

  it('login status sets logged-in to the returned boolean', () => {
    expect(authReducer(given(), loginStatusChecked.fulfilled(true, 'r')).isLoggedIn).toBe(true);
    expect(
      authReducer(given({ isLoggedIn: true }), loginStatusChecked.fulfilled(false, 'r')).isLoggedIn,
    ).toBe(false);
  });

  it('logout clears the session; session expiry resets flags, message, status and user', () => {
    const busy = given({ isLoggedIn: true, user: aUser(), isError: true, message: 'x', isSuccess: true });
    expect(authReducer(busy, logoutRequested.fulfilled('Logged out', 'r'))).toMatchObject({
      isLoggedIn: false,
      user: null,
      message: 'Logged out',
    });
    expect(authReducer(busy, sessionExpired())).toMatchObject({
      isLoggedIn: false,
      user: null,
      isError: false,
      isSuccess: false,
      message: '',
    });
  });

  it('update merges the answered user', () => {
    const user = aUser({ name: 'Old' });
    const state = authReducer(
      given({ isLoggedIn: true, user }),
      profileUpdateSubmitted.fulfilled({ ...user, name: 'New' }, 'r', { name: 'New' }),
    );
    expect(state.user?.name).toBe('New');
  });

  it('users list counts verified and suspended users', () => {
    const users = [
      aUser({ isVerified: true }),
      aUser({ isVerified: false, role: 'suspended' }),
      aUser({ isVerified: true, role: 'suspended' }),
      aUser({ isVerified: false }),
    ];
    const state = authReducer(given(), usersRequested.fulfilled(users, 'r'));
    expect(state).toMatchObject({ verifiedUsers: 2, suspendedUsers: 2 });
    expect(state.users).toHaveLength(4);
  });
});
