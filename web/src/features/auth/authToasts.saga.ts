import { toast } from '../../ui/toast';
import { takeEvery } from 'redux-saga/effects';
import type { Action } from '@reduxjs/toolkit';

type AnyAction = Action<string> & { payload?: unknown; error?: { message?: string } };
import {
  googleSignInCompleted,
  impersonationRequested,
  loginCodeSubmitted,
  loginStatusChecked,
  loginSubmitted,
  profileUpdateSubmitted,
  registerSubmitted,
} from './authSlice';

/** Toasts of spec §4 and §8, kept out of the reducers. */
export const authToast = {
  success: (text: string) => void toast.success(text),
  error: (text: string) => void toast.error(text),
};

const successText: Record<string, string> = {
  [registerSubmitted.fulfilled.type]: 'Registration Successful',
  [loginSubmitted.fulfilled.type]: 'Login Successful',
  [googleSignInCompleted.fulfilled.type]: 'Login Successful',
  [profileUpdateSubmitted.fulfilled.type]: 'User Updated',
};

/** These answer a message that the screen shows as a toast. */
const serverMessageCalls = new Set([
  'auth/logoutRequested',
  'auth/verificationEmailRequested',
  'auth/verificationLinkOpened',
  'auth/passwordChangeSubmitted',
  'auth/passwordResetSubmitted',
  'auth/passwordResetRequested',
  'auth/userDeleteConfirmed',
  'auth/userRoleChangeSubmitted',
  'auth/loginCodeRequested',
  'auth/impersonationRequested',
  'auth/impersonationExitRequested',
]);

const isFulfilled = (a: Action<string>) => a.type.startsWith('auth/') && a.type.endsWith('/fulfilled');
const isRejected = (a: Action<string>) => a.type.startsWith('auth/') && a.type.endsWith('/rejected');

function showSuccess(action: AnyAction) {
  const fixed = successText[action.type];
  if (fixed) return authToast.success(fixed);
  if (action.type === loginCodeSubmitted.fulfilled.type) {
    const { message } = action.payload as { message: string };
    return authToast.success(message || 'Login Successful');
  }
  const base = action.type.slice(0, -'/fulfilled'.length);
  if (serverMessageCalls.has(base) && typeof action.payload === 'string' && action.payload)
    authToast.success(action.payload);
}

function showError(action: AnyAction) {
  // Login status is only logged (spec §8); impersonation failures are an alert on the screen (spec §7).
  if (
    action.type === loginStatusChecked.rejected.type ||
    action.type === impersonationRequested.rejected.type
  )
    return;
  if (action.type === 'auth/appStarted/rejected') return;
  const text = typeof action.payload === 'string' && action.payload ? action.payload : action.error?.message;
  if (text) authToast.error(text);
}

export function* authToastsSaga() {
  yield takeEvery(isFulfilled, showSuccess);
  yield takeEvery(isRejected, showError);
}
