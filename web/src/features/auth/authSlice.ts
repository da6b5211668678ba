import { createAsyncThunk, createSlice, isAnyOf, type PayloadAction } from '@reduxjs/toolkit';
import { errorMessage } from '../../app/errors';
import { asBalancesChanged, asStatusChanged, LIVE_EVENTS } from '../live/liveEvents';
import { eventReceived } from '../live/liveSlice';
import { authApi } from './authApi';
import type { LoginInput, ProfileChanges, RegisterInput, User } from './authTypes';

/** Spec §3 auth state, plus whether the start-up session check has finished. */
export interface AuthState {
  isLoggedIn: boolean;
  user: User | null;
  users: User[];
  twoFactor: boolean;
  isError: boolean;
  isSuccess: boolean;
  isLoading: boolean;
  message: string;
  verifiedUsers: number;
  suspendedUsers: number;
  /** Every user (the statistics' counter), not only the pages loaded into `users`. */
  totalUsers: number;
  /** Where the next page of `users` starts ('' : no more). */
  usersNextCursor: string;
  sessionStatus: 'unknown' | 'checking' | 'checked';
  /**
   * The last login code asked for (sendLoginCode) and what became of it, so the code screen says what
   * happened: a code on its way, or none sent (the server's reason, e.g. too many attempts).
   */
  loginCodeSend: { email: string; status: 'sending' | 'sent' | 'failed'; message: string } | null;
}

export const initialAuthState: AuthState = {
  isLoggedIn: false,
  user: null,
  users: [],
  twoFactor: false,
  isError: false,
  isSuccess: false,
  isLoading: false,
  message: '',
  verifiedUsers: 0,
  suspendedUsers: 0,
  totalUsers: 0,
  usersNextCursor: '',
  sessionStatus: 'unknown',
  loginCodeSend: null,
};

type Config = { rejectValue: string };

/** Wraps an account call: a failure carries the §8 error text as its payload. */
function call<Arg, Result>(type: string, run: (arg: Arg) => Promise<Result>) {
  return createAsyncThunk<Result, Arg, Config>(type, async (arg, { rejectWithValue }) => {
    try {
      return await run(arg);
    } catch (error) {
      return rejectWithValue(errorMessage(error));
    }
  });
}

export const registerSubmitted = call('auth/registerSubmitted', (input: RegisterInput) =>
  authApi.register(input),
);
export const loginSubmitted = call('auth/loginSubmitted', (input: LoginInput) => authApi.login(input));
export const logoutRequested = call('auth/logoutRequested', (_: void) => authApi.logout());
export const userRequested = call('auth/userRequested', (_: void) => authApi.getUser());
export const profileUpdateSubmitted = call('auth/profileUpdateSubmitted', (changes: ProfileChanges) =>
  authApi.updateUser(changes),
);
export const verificationEmailRequested = call('auth/verificationEmailRequested', (_: void) =>
  authApi.sendVerificationEmail(),
);
export const verificationLinkOpened = call('auth/verificationLinkOpened', (token: string) =>
  authApi.verifyUser(token),
);
export const passwordChangeSubmitted = call(
  'auth/passwordChangeSubmitted',
  (input: { oldPassword: string; password: string }) => authApi.changePassword(input),
);
export const passwordResetSubmitted = call(
  'auth/passwordResetSubmitted',
  (input: { resetToken: string; password: string }) =>
    authApi.resetPassword(input.resetToken, input.password),
);
export const passwordResetRequested = call('auth/passwordResetRequested', (email: string) =>
  authApi.forgotPassword(email),
);
export const usersRequested = call('auth/usersRequested', (_: void) => authApi.getUsers());
/** The admin's users list, a page at a time: the first page of a search (`cursor` empty) or the next one. */
export const usersPageRequested = call(
  'auth/usersPageRequested',
  (page: { limit: number; cursor?: string; q?: string }) => authApi.getUsersPage(page),
);
export const userStatsRequested = call('auth/userStatsRequested', (_: void) => authApi.getUserStats());
export const userDeleteConfirmed = call(
  'auth/userDeleteConfirmed',
  (input: { id: string; cancelPending?: boolean }) => authApi.deleteUser(input),
);
export const userRoleChangeSubmitted = call(
  'auth/userRoleChangeSubmitted',
  (input: { id: string; role: string }) => authApi.upgradeUser(input),
);
export const loginCodeRequested = call('auth/loginCodeRequested', (email: string) =>
  authApi.sendLoginCode(email),
);
export const loginCodeSubmitted = call(
  'auth/loginCodeSubmitted',
  (input: { email: string; loginCode: string }) => authApi.loginWithCode(input.email, input.loginCode),
);
export const googleSignInCompleted = call('auth/googleSignInCompleted', (credential: string) =>
  authApi.googleLogin(credential),
);
export const impersonationRequested = call('auth/impersonationRequested', (id: string) =>
  authApi.impersonate(id),
);
export const impersonationExitRequested = call('auth/impersonationExitRequested', (_: void) =>
  authApi.exitImpersonation(),
);

/** Login status: a failure is only logged, and the visitor is treated as logged out (spec §6, §8). */
export const loginStatusChecked = createAsyncThunk<boolean, void>('auth/loginStatusChecked', async () => {
  try {
    return await authApi.loginStatus();
  } catch (error) {
    console.warn(errorMessage(error));
    return false;
  }
});

/** Start-up: check the session, then load the current user when logged in. */
export const appStarted = createAsyncThunk<void, void>('auth/appStarted', async (_, { dispatch }) => {
  const status = await dispatch(loginStatusChecked());
  if (loginStatusChecked.fulfilled.match(status) && status.payload) await dispatch(userRequested());
});

const accountCalls = [
  registerSubmitted,
  loginSubmitted,
  logoutRequested,
  userRequested,
  profileUpdateSubmitted,
  verificationEmailRequested,
  verificationLinkOpened,
  passwordChangeSubmitted,
  passwordResetSubmitted,
  passwordResetRequested,
  usersRequested,
  userDeleteConfirmed,
  userRoleChangeSubmitted,
  loginCodeRequested,
  loginCodeSubmitted,
  googleSignInCompleted,
  impersonationRequested,
  impersonationExitRequested,
  loginStatusChecked,
] as const;

const messageCalls = [
  logoutRequested,
  verificationEmailRequested,
  verificationLinkOpened,
  passwordChangeSubmitted,
  passwordResetSubmitted,
  passwordResetRequested,
  userDeleteConfirmed,
  userRoleChangeSubmitted,
  loginCodeRequested,
  impersonationRequested,
  impersonationExitRequested,
] as const;

function loggedIn(state: AuthState, user: User) {
  state.isLoggedIn = true;
  state.user = user;
}

const authSlice = createSlice({
  name: 'auth',
  initialState: initialAuthState,
  reducers: {
    /** The server ended the session (401), e.g. after suspension: spec §4 reset. */
    sessionExpired(state) {
      state.isError = false;
      state.isSuccess = false;
      state.isLoading = false;
      state.message = '';
      state.isLoggedIn = false;
      state.user = null;
      state.twoFactor = false;
    },
    /** A form was opened: forget the outcome of the previous call. */
    feedbackDismissed(state) {
      state.isError = false;
      state.isSuccess = false;
      state.message = '';
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(appStarted.pending, (state) => {
        state.sessionStatus = 'checking';
      })
      .addCase(appStarted.fulfilled, (state) => {
        state.sessionStatus = 'checked';
      })
      .addCase(appStarted.rejected, (state) => {
        state.sessionStatus = 'checked';
      })
      .addCase(loginStatusChecked.fulfilled, (state, action) => {
        state.isLoggedIn = action.payload;
      })
      .addCase(registerSubmitted.fulfilled, (state, action) => loggedIn(state, action.payload))
      .addCase(loginSubmitted.fulfilled, (state, action) => {
        loggedIn(state, action.payload);
        state.twoFactor = false;
      })
      .addCase(googleSignInCompleted.fulfilled, (state, action) => loggedIn(state, action.payload))
      .addCase(userRequested.fulfilled, (state, action) => loggedIn(state, action.payload))
      .addCase(loginCodeRequested.pending, (state, action) => {
        state.loginCodeSend = { email: action.meta.arg, status: 'sending', message: '' };
      })
      .addCase(loginCodeRequested.fulfilled, (state, action) => {
        state.loginCodeSend = { email: action.meta.arg, status: 'sent', message: action.payload };
      })
      .addCase(loginCodeRequested.rejected, (state, action) => {
        state.loginCodeSend = { email: action.meta.arg, status: 'failed', message: action.payload ?? '' };
      })
      .addCase(loginCodeSubmitted.fulfilled, (state, action) => {
        loggedIn(state, action.payload.user);
        state.twoFactor = false;
        state.message = action.payload.message;
      })
      .addCase(profileUpdateSubmitted.fulfilled, (state, action) => {
        state.user = { ...state.user, ...action.payload };
      })
      // Live pushes (features/live/README.md): balances and KYC status change without a reload.
      .addCase(eventReceived, (state, action) => {
        const { event, payload } = action.payload;
        if (!state.user) return;
        const balances = event === LIVE_EVENTS.balancesChanged ? asBalancesChanged(payload) : null;
        if (balances && (!balances.userId || balances.userId === state.user._id)) {
          const { balance, investmentBalance, totalMaturityAmount } = balances.balances;
          if (typeof balance === 'number') state.user.balance = balance;
          if (typeof investmentBalance === 'number') state.user.investmentBalance = investmentBalance;
          if (typeof totalMaturityAmount === 'number') state.user.totalMaturityAmount = totalMaturityAmount;
        }
        const status = event === LIVE_EVENTS.statusChanged ? asStatusChanged(payload) : null;
        if (status?.kind === 'kyc' && status.id === state.user._id) state.user.kycStatus = status.status;
      })
      .addCase(logoutRequested.fulfilled, (state) => {
        state.isLoggedIn = false;
        state.user = null;
        state.users = [];
        state.twoFactor = false;
      })
      .addCase(usersPageRequested.fulfilled, (state, action) => {
        const more = Boolean(action.meta.arg.cursor);
        if (more) {
          const known = new Set(state.users.map((u) => u._id));
          state.users.push(...action.payload.users.filter((u) => !known.has(u._id)));
        } else state.users = action.payload.users;
        state.usersNextCursor = action.payload.nextCursor;
      })
      .addCase(userStatsRequested.fulfilled, (state, action) => {
        state.totalUsers = action.payload.total;
        state.verifiedUsers = action.payload.verified;
        state.suspendedUsers = action.payload.suspended;
      })
      .addCase(usersRequested.fulfilled, (state, action) => {
        state.users = action.payload;
        state.totalUsers = action.payload.length;
        state.usersNextCursor = '';
        state.verifiedUsers = action.payload.filter((u) => u.isVerified).length;
        state.suspendedUsers = action.payload.filter((u) => u.role === 'suspended').length;
      })
      .addCase(loginSubmitted.rejected, (state, action) => {
        state.isLoggedIn = false;
        state.user = null;
        if ((action.payload ?? '').includes('New browser')) state.twoFactor = true;
      })
      .addMatcher(
        isAnyOf(registerSubmitted.rejected, loginCodeSubmitted.rejected, googleSignInCompleted.rejected),
        (state) => {
          state.isLoggedIn = false;
          state.user = null;
        },
      )
      .addMatcher(
        isAnyOf(...messageCalls.map((c) => c.fulfilled)),
        (state, action: PayloadAction<string>) => {
          state.message = action.payload;
        },
      )
      .addMatcher(isAnyOf(...accountCalls.map((c) => c.pending)), (state) => {
        state.isLoading = true;
        state.isError = false;
        state.isSuccess = false;
      })
      .addMatcher(isAnyOf(...accountCalls.map((c) => c.fulfilled)), (state) => {
        state.isLoading = false;
        state.isSuccess = true;
      })
      .addMatcher(isAnyOf(...accountCalls.map((c) => c.rejected)), (state, action) => {
        state.isLoading = false;
        state.isError = true;
        state.isSuccess = false;
        state.message =
          (action.payload as string | undefined) ?? action.error.message ?? 'Something went wrong';
      });
  },
});

export const { sessionExpired, feedbackDismissed } = authSlice.actions;
export const authReducer = authSlice.reducer;

type WithAuth = { auth: AuthState };
export const selectAuth = (s: WithAuth) => s.auth;
export const selectUser = (s: WithAuth) => s.auth.user;
export const selectIsLoggedIn = (s: WithAuth) => s.auth.isLoggedIn;
export const selectIsAdmin = (s: WithAuth) => s.auth.isLoggedIn && s.auth.user?.role === 'admin';
