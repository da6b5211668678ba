import { describe, expect, it } from 'vitest';
import { makeStore } from '../../app/store';
import { aUser, idleSocket, loggedInAs } from '../../test/render';
import { eventReceived, liveReducer } from './liveSlice';

const live = (event: string, payload: unknown) => eventReceived({ event, payload });

describe('live slice', () => {
  it('numbers pushes, remembers the last position and counts resync requests', () => {
    let s = liveReducer(undefined, live('queue/itemAdded', { queue: 'kyc', item: {}, position: 'p-1' }));
    s = liveReducer(s, live('ready', { userId: 'u' }));
    s = liveReducer(s, live('live/resync', {}));
    expect(s.seq).toBe(3);
    expect(s.recent.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(s.lastPosition).toBe('p-1');
    expect(s.resyncs).toBe(1);
  });
});

describe('balances/changed and status/changed on the session user', () => {
  it('updates the dashboard balances and KYC status of the logged-in user without a reload', () => {
    const ada = aUser({
      _id: 'u1',
      balance: 1,
      investmentBalance: 2,
      totalMaturityAmount: 3,
      kycStatus: 'Pending',
    });
    const store = makeStore({ preloadedState: loggedInAs(ada), createSocket: idleSocket });
    store.dispatch(
      live('balances/changed', {
        userId: 'u1',
        balances: { balance: 1500.25, investmentBalance: 0, totalMaturityAmount: 99 },
      }),
    );
    store.dispatch(live('balances/changed', { userId: 'someone-else', balances: { balance: 5 } }));
    store.dispatch(live('status/changed', { kind: 'kyc', id: 'u1', status: 'Approved' }));
    const user = store.getState().auth.user!;
    expect([user.balance, user.investmentBalance, user.totalMaturityAmount, user.kycStatus]).toEqual([
      1500.25,
      0,
      99,
      'Approved',
    ]);
  });
});

describe('live/resync', () => {
  it('fetches the session user again so the dashboard balances catch up', async () => {
    const { fakeApi } = await import('../../test/fakeApi');
    const ada = aUser({ _id: 'u1', balance: 1 });
    const server = fakeApi({ 'GET users/getUser': [200, { ...ada, balance: 42 }] });
    try {
      const store = makeStore({ preloadedState: loggedInAs(ada), createSocket: idleSocket });
      store.dispatch(live('live/resync', { reason: 'not-replayed' }));
      await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => setTimeout(r, 0));
      expect(server.callsTo('GET users/getUser')).toHaveLength(1);
      expect(store.getState().auth.user?.balance).toBe(42);
    } finally {
      server.restore();
    }
  });
});
