import type { Action } from '@reduxjs/toolkit';
import { put, select, takeEvery } from 'redux-saga/effects';
import { userRequested } from '../auth/authSlice';
import type { AuthState } from '../auth/authSlice';
import { LIVE_EVENTS } from './liveEvents';
import { eventReceived } from './liveSlice';

const isResync = (a: Action<string>) => eventReceived.match(a) && a.payload.event === LIVE_EVENTS.resync;

/** The gateway could not replay missed pushes: fetch the user again so the dashboard balances are current. */
function* refreshUser() {
  const loggedIn: boolean = yield select((s: { auth: AuthState }) => s.auth.isLoggedIn);
  if (loggedIn) yield put(userRequested() as unknown as Action<string>);
}

export function* liveResyncSaga() {
  yield takeEvery(isResync, refreshUser);
}
