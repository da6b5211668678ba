import { all, fork } from 'redux-saga/effects';
import { authToastsSaga } from '../features/auth/authToasts.saga';
import { liveSaga, type SocketFactory } from '../features/live/live.saga';
import { liveCacheSaga } from '../features/live/liveCache.saga';
import { liveResyncSaga } from '../features/live/resync.saga';

export interface SagaDeps {
  createSocket: SocketFactory;
}

export function* rootSaga(deps: SagaDeps) {
  yield all([
    fork(authToastsSaga),
    fork(liveSaga, deps.createSocket),
    fork(liveResyncSaga),
    fork(liveCacheSaga),
  ]);
}
