/**
 * The server-data cache (serverApi.ts) joined to the store: importing this module adds its reducer and
 * middleware, so the first screen that reads server data brings RTK Query in and the first route does not.
 */
import { serverApi } from './serverApi';
import { dynamicMiddleware, rootReducer } from './rootReducer';

export * from './serverApi';

rootReducer.inject(serverApi);
dynamicMiddleware.addMiddleware(serverApi.middleware);
