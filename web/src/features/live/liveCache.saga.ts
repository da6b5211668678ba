import type { Action } from '@reduxjs/toolkit';
import { put, takeEvery } from 'redux-saga/effects';
import { asStatusChanged, LIVE_EVENTS, type StatusChangedPayload, type StatusKind } from './liveEvents';
import { eventReceived, type LiveEvent } from './liveSlice';

/** What a push changes in the server-data cache: actions or thunks (RTK Query's `util` ones). */
export type CacheUpdatesOf = (event: LiveEvent) => unknown[];

const features = new Set<CacheUpdatesOf>();

/**
 * A feature's endpoints (app/api.ts) say here how pushes change what they cache; they register when their
 * module loads, so the socket's pushes reach the cache only once a screen that reads server data is open.
 */
export function updateCacheOnPush(updatesOf: CacheUpdatesOf): void {
  features.add(updatesOf);
}

/** The same for the `status/changed` pushes of one kind of item. */
export function updateCacheOnStatus(
  kind: StatusKind,
  updatesOf: (changed: StatusChangedPayload) => unknown[],
): void {
  updateCacheOnPush((event) => {
    const changed = event.event === LIVE_EVENTS.statusChanged ? asStatusChanged(event.payload) : null;
    return changed?.kind === kind ? updatesOf(changed) : [];
  });
}

function* updateCache(action: ReturnType<typeof eventReceived>) {
  for (const updatesOf of features)
    for (const update of updatesOf(action.payload)) yield put(update as Action<string>);
}

/** Pushes update the server-data cache too, so open lists and details show them without a reload. */
export function* liveCacheSaga() {
  yield takeEvery(eventReceived, updateCache);
}
