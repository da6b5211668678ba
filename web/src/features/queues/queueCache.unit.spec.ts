/**
 * The admin queues' cache (queueApi.ts): the pages RTK Query loaded, kept current by the live queue pushes
 * and by this admin's own decisions.
 */
import { combineSlices, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware, { type Task } from 'redux-saga';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { liveCacheSaga } from '../live/liveCache.saga';
import { eventReceived, liveReducer } from '../live/liveSlice';
import { QUEUE_NAMES, type QueueName } from '../live/liveEvents';
import { queueEndpoints, queueItemDecided } from './queueApi';
import { queueItemId, queueItemsOf } from './queueItems';

const server = fakeApiEachTest();
const live = (event: string, payload: unknown) => eventReceived({ event, payload });

const ENDPOINTS = {
  deposits: { name: 'pendingDeposits', route: 'GET payments/pending-deposit', key: 'deposit' },
  investments: {
    name: 'pendingInvestments',
    route: 'GET invest/adminPendingInvestment',
    key: 'pendingInvestments',
  },
  withdrawals: { name: 'pendingWithdrawals', route: 'GET withDraw/pending', key: 'withdrawals' },
  kyc: { name: 'pendingKyc', route: 'GET users/kyc/pending', key: 'pendingUsers' },
} as const;

const running = new Set<Task>();
afterEach(() => {
  for (const task of running) task.cancel();
  running.clear();
});

/** The server-data cache with the pushes' saga, as app/store.ts and app/api.ts join them. */
function cacheStore() {
  const sagas = createSagaMiddleware();
  const store = configureStore({
    reducer: combineSlices(queueEndpoints, { live: liveReducer }),
    middleware: (getDefault) => getDefault().concat(queueEndpoints.middleware, sagas),
  });
  running.add(sagas.run(liveCacheSaga));
  return store;
}

const FETCH: Record<QueueName, (store: ReturnType<typeof cacheStore>) => Promise<unknown>> = {
  deposits: (store) => store.dispatch(queueEndpoints.endpoints.pendingDeposits.initiate()).unwrap(),
  investments: (store) => store.dispatch(queueEndpoints.endpoints.pendingInvestments.initiate()).unwrap(),
  withdrawals: (store) => store.dispatch(queueEndpoints.endpoints.pendingWithdrawals.initiate()).unwrap(),
  kyc: (store) => store.dispatch(queueEndpoints.endpoints.pendingKyc.initiate()).unwrap(),
};

/** A cache whose queues were fetched with these items (one page each), as open screens would hold them. */
async function queuesFetched(fetched: Partial<Record<QueueName, object[]>>) {
  const store = cacheStore();
  for (const queue of QUEUE_NAMES) {
    const items = fetched[queue];
    if (!items) continue;
    const { route, key } = ENDPOINTS[queue];
    server.on(route, [200, { [key]: items }]);
    await FETCH[queue](store);
  }
  const shown = (queue: QueueName) =>
    queueItemsOf<object>(queueEndpoints.endpoints[ENDPOINTS[queue].name].select()(store.getState()).data);
  return { store, shown, ids: (queue: QueueName) => shown(queue).map(queueItemId) };
}

describe('admin queues (live)', () => {
  it('adds a requested item to its queue, once, even when replayed or already fetched', async () => {
    const { store, ids, shown } = await queuesFetched({
      deposits: [{ _id: 'd1', amount: 10 }],
      withdrawals: [],
    });
    store.dispatch(
      live('queue/itemAdded', { queue: 'deposits', item: { _id: 'd2', amount: 20 }, position: '7' }),
    );
    store.dispatch(
      live('queue/itemAdded', { queue: 'deposits', item: { _id: 'd2', amount: 20 }, position: '7' }),
    );
    store.dispatch(live('queue/itemAdded', { queue: 'deposits', item: { _id: 'd1', amount: 10 } }));
    expect(ids('deposits')).toEqual(['d1', 'd2']);
    expect(shown('withdrawals')).toEqual([]);
  });

  it('removes an item decided by any admin from its queue only', async () => {
    const { store, ids, shown } = await queuesFetched({
      withdrawals: [{ _id: 'w1' }, { _id: 'w2' }],
      kyc: [{ _id: 'w1' }],
    });
    store.dispatch(live('queue/itemDecided', { queue: 'withdrawals', id: 'w1', status: 'Approved' }));
    expect(ids('withdrawals')).toEqual(['w2']);
    expect(shown('kyc')).toHaveLength(1);
    store.dispatch(live('queue/itemDecided', { queue: 'withdrawals', id: 'nope' }));
    expect(ids('withdrawals')).toEqual(['w2']);
  });

  it('keys deposits by transactionId and investments by investmentId', async () => {
    const { store, ids, shown } = await queuesFetched({
      deposits: [{ transactionId: 't1' }],
      investments: [{ investmentId: 'i1' }, { investmentId: 'i2' }],
    });
    store.dispatch(live('queue/itemDecided', { queue: 'deposits', id: 't1' }));
    // this admin's own decision takes the item off at once
    store.dispatch(queueItemDecided('investments', 'i1'));
    expect(shown('deposits')).toEqual([]);
    expect(ids('investments')).toEqual(['i2']);
  });

  it('ignores malformed pushes and other events', async () => {
    const { store, shown } = await queuesFetched({ kyc: [{ _id: 'u1' }] });
    const before = shown('kyc');
    store.dispatch(live('queue/itemAdded', { queue: 'loans', item: { _id: 'x' } }));
    store.dispatch(live('queue/itemAdded', { queue: 'kyc' }));
    store.dispatch(live('queue/itemDecided', { queue: 'kyc', id: 5 }));
    store.dispatch(live('ready', { userId: 'u1' }));
    expect(shown('kyc')).toEqual(before);
  });

  it('lists a page loaded after a push without the item the push already added', async () => {
    const deposit = (_id: string) => ({ _id, amount: 1, status: 'Pending' });
    server.on('GET payments/pending-deposit', ({ url }) =>
      url.includes('cursor=c1')
        ? [200, { deposit: [deposit('d2'), deposit('d3')] }]
        : [200, { deposit: [deposit('d1')] }, { 'x-next-cursor': 'c1' }],
    );
    const store = cacheStore();
    await FETCH.deposits(store);
    store.dispatch(live('queue/itemAdded', { queue: 'deposits', item: deposit('d3') }));
    await store
      .dispatch(queueEndpoints.endpoints.pendingDeposits.initiate(undefined, { direction: 'forward' }))
      .unwrap();
    const pages = queueEndpoints.endpoints.pendingDeposits.select()(store.getState()).data;
    expect(queueItemsOf(pages).map(queueItemId)).toEqual(['d1', 'd3', 'd2']);
  });
});
