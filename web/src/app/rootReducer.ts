import { combineSlices, createDynamicMiddleware } from '@reduxjs/toolkit';
import { authReducer } from '../features/auth/authSlice';
import { claimsReducer } from '../features/claims/claimsSlice';
import { liveReducer } from '../features/live/liveSlice';
import type { ServerApiSlice } from './serverApi';

/**
 * The reducers every route needs; the server-data cache (app/api.ts) injects itself when the first screen
 * that reads server data loads, so RTK Query is not part of the first route.
 */
export const rootReducer = combineSlices({
  auth: authReducer,
  live: liveReducer,
  claims: claimsReducer,
}).withLazyLoadedSlices<ServerApiSlice>();

/** Middleware added after a store exists (app/api.ts adds RTK Query's). */
export const dynamicMiddleware = createDynamicMiddleware();
