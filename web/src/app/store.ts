import { configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { sessionExpired } from '../features/auth/authSlice';
import { createSocketIo, type SocketFactory } from '../features/live/live.saga';
import { setSessionEndedHandler } from './apiClient';
import { dynamicMiddleware, rootReducer } from './rootReducer';
import { rootSaga } from './rootSaga';

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
    middleware: (getDefault) => getDefault().concat(dynamicMiddleware.middleware, sagaMiddleware),
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
