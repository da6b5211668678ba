import { combineReducers, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { authReducer, sessionExpired } from '../features/auth/authSlice';
import { liveReducer } from '../features/live/liveSlice';
import { queuesReducer } from '../features/queues/queuesSlice';
import { claimsReducer } from '../features/claims/claimsSlice';
import { createSocketIo, type SocketFactory } from '../features/live/live.saga';
import { setSessionEndedHandler } from './apiClient';
import { rootSaga } from './rootSaga';

const rootReducer = combineReducers({
  auth: authReducer,
  live: liveReducer,
  queues: queuesReducer,
  claims: claimsReducer,
});

export type RootState = ReturnType<typeof rootReducer>;

export interface StoreOptions {
  preloadedState?: Partial<RootState>;
  createSocket?: SocketFactory;
}

export function makeStore({ preloadedState, createSocket = createSocketIo }: StoreOptions = {}) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: preloadedState as RootState | undefined,
    middleware: (getDefault) => getDefault().concat(sagaMiddleware),
  });
  const sagas = sagaMiddleware.run(rootSaga, { createSocket });
  setSessionEndedHandler(() => {
    if (store.getState().auth.isLoggedIn) store.dispatch(sessionExpired());
  });
  /** Cancels every saga of this store (tests: nothing of a finished test may toast into the next). */
  return Object.assign(store, { stopSagas: () => sagas.cancel() });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
