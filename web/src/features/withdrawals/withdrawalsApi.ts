import { serverApi } from '../../app/api';
import { api } from '../../app/apiClient';
import { withIntentKey } from '../../app/intentKey';
import { updateCacheOnPush, updateCacheOnStatus } from '../live/liveCache.saga';
import { asBalancesChanged, LIVE_EVENTS } from '../live/liveEvents';
import { messageFrom, recordFrom } from '../queues/lists';
import type { Withdrawal } from './withdrawalTypes';

const enc = encodeURIComponent;

export const withdrawalsApi = {
  /** POST api/withDraw/create { amount, walletAddress } -> { message }; `key`: the intent's Idempotency-Key. */
  async create(input: { amount: string; walletAddress: string }, key?: string): Promise<string> {
    return messageFrom((await api.post('withDraw/create', input, key ? withIntentKey(key) : undefined)).data);
  },
};

/** The withdrawable Total Profit of GET api/withDraw/balance's { totalMaturityAmount }; null when not a number. */
function withdrawableOf(data: unknown): number | null {
  const v = recordFrom<{ totalMaturityAmount?: unknown }>(data)?.totalMaturityAmount;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

/** A withdrawal as the detail route answers it (bare or { withdrawal }); without an amount it is invalid (null). */
function withdrawalOf(data: unknown): Withdrawal | null {
  const w = recordFrom<Withdrawal>(data, 'withdrawal');
  return w && w.amount !== undefined && w.amount !== null && w.amount !== '' ? w : null;
}

export type WithdrawalDecision = 'approve' | 'reject';

export const withdrawalsEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => ({
    /**
     * GET api/withDraw/balance -> { totalMaturityAmount }: what the caller can withdraw. A screen that closes
     * drops it; balances/changed pushes write the new figure in.
     */
    withdrawableBalance: build.query<number | null, void>({
      query: () => ({ url: 'withDraw/balance' }),
      transformResponse: withdrawableOf,
      providesTags: ['WithdrawableBalance'],
      keepUnusedDataFor: 0,
    }),
    /** GET api/withDraw/get-withdrawal/{id} -> Withdrawal. */
    withdrawal: build.query<Withdrawal | null, string>({
      query: (id) => ({ url: `withDraw/get-withdrawal/${enc(id)}` }),
      transformResponse: withdrawalOf,
      providesTags: (_result, _error, id) => [{ type: 'Withdrawal', id }],
    }),
    /** PUT api/withDraw/approve/{id} | reject/{id}, empty body -> { message }. */
    decideWithdrawal: build.mutation<string, { id: string; decision: WithdrawalDecision }>({
      query: ({ id, decision }) => ({ method: 'put', url: `withDraw/${decision}/${enc(id)}` }),
      transformResponse: messageFrom,
      // the decided withdrawal shows its new status without another GET
      async onQueryStarted({ id, decision }, { dispatch, queryFulfilled }): Promise<void> {
        try {
          await queryFulfilled;
        } catch {
          return; // refused or failed: the screen says why and shows the item unchanged
        }
        dispatch(
          withdrawalsEndpoints.util.updateQueryData('withdrawal', id, (w) => {
            if (w) w.status = decision === 'approve' ? 'Approved' : 'Rejected';
          }),
        );
      },
    }),
  }),
});

export const { useWithdrawalQuery, useDecideWithdrawalMutation, useWithdrawableBalanceQuery } =
  withdrawalsEndpoints;

// the caller's balances changed: the withdrawable figure shown is the pushed one
updateCacheOnPush((event) => {
  const changed = event.event === LIVE_EVENTS.balancesChanged ? asBalancesChanged(event.payload) : null;
  const total = changed?.balances.totalMaturityAmount;
  return typeof total === 'number'
    ? [withdrawalsEndpoints.util.updateQueryData('withdrawableBalance', undefined, () => total)]
    : [];
});

// a withdrawal decided elsewhere: its cached detail shows the new status
updateCacheOnStatus('withdrawal', (changed) => [
  withdrawalsEndpoints.util.updateQueryData('withdrawal', changed.id, (w) => {
    if (w) w.status = changed.status;
  }),
]);
