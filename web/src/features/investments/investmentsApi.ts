import { cursorPaged, serverApi } from '../../app/api';
import { api } from '../../app/apiClient';
import { withIntentKey } from '../../app/intentKey';
import type { Page } from '../../app/pages';
import { updateCacheOnStatus } from '../live/liveCache.saga';
import { listFrom, messageFrom, recordFrom } from '../queues/lists';
import { investmentIdOf, type Investment, type Plan } from './investmentTypes';

const enc = encodeURIComponent;

export const investmentsApi = {
  /**
   * POST api/invest/start-invest { amount, planName } -> { message }. The amount is the free text typed; `key`
   * the intent's Idempotency-Key (app/intentKey.ts).
   */
  async start(input: { amount: string; planName: string }, key?: string): Promise<string> {
    return messageFrom(
      (await api.post('invest/start-invest', input, key ? withIntentKey(key) : undefined)).data,
    );
  },
  /** GET api/invest/investment-history -> Investment[] (or { investments }), the caller's own. */
  async history(): Promise<Investment[]> {
    return listFrom<Investment>((await api.get('invest/investment-history')).data, 'investments', 'history');
  },
};

export const INVESTMENT_DECISION_MESSAGES = {
  approveFailed: 'Failed to approve the investment.',
  rejectFailed: 'Failed to reject the investment.',
  approved: 'Investment approved',
  rejected: 'Investment rejected',
} as const;

/** The decisions on a pending investment's detail page. */
export const INVESTMENT_DECISION_CHOICES = [
  {
    decision: 'approve',
    label: 'Approve investment',
    succeeded: INVESTMENT_DECISION_MESSAGES.approved,
    failed: INVESTMENT_DECISION_MESSAGES.approveFailed,
  },
  {
    decision: 'reject',
    label: 'Reject investment',
    succeeded: INVESTMENT_DECISION_MESSAGES.rejected,
    failed: INVESTMENT_DECISION_MESSAGES.rejectFailed,
  },
] as const;

/** An investment as the detail route answers it (bare or { investment }); null without a status. */
function investmentOf(data: unknown): Investment | null {
  const i = recordFrom<Investment>(data, 'investment');
  return i && i.status !== undefined ? i : null;
}

export type InvestmentDecision = 'approve' | 'reject';

export const investmentsEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The caller's investments, newest first, a page at a time (the next page's cursor from X-Next-Cursor);
     * status pushes are written into the pages.
     */
    investmentHistory: build.infiniteQuery<Page<Investment>, void, string>({
      ...cursorPaged('invest/investment-history', (data) =>
        listFrom<Investment>(data, 'investments', 'history'),
      ),
      providesTags: [{ type: 'Investment', id: 'LIST' }],
    }),
    /** GET api/invest/plans -> Plan[] (the bare list, or { plans }); a screen that closes drops it. */
    plans: build.query<Plan[], void>({
      query: () => ({ url: 'invest/plans' }),
      transformResponse: (data: unknown) => listFrom<Plan>(data, 'plans'),
      providesTags: ['Plans'],
      keepUnusedDataFor: 0,
    }),
    /** GET api/invest/investment/{id} -> Investment; owner or admin. */
    investment: build.query<Investment | null, string>({
      query: (id) => ({ url: `invest/investment/${enc(id)}` }),
      transformResponse: investmentOf,
      providesTags: (_result, _error, id) => [{ type: 'Investment', id }],
    }),
    /** PUT api/invest/{id}/approve | reject, empty body -> { message }; the investment is read again. */
    decideInvestment: build.mutation<string, { id: string; decision: InvestmentDecision }>({
      query: ({ id, decision }) => ({ method: 'put', url: `invest/${enc(id)}/${decision}` }),
      transformResponse: messageFrom,
      invalidatesTags: (_result, error, { id }) => (error ? [] : [{ type: 'Investment', id }]),
    }),
  }),
});

export const {
  useInvestmentQuery,
  useDecideInvestmentMutation,
  useInvestmentHistoryInfiniteQuery,
  usePlansQuery,
} = investmentsEndpoints;

// an investment's new status: written into the investor's list; its detail is read again (its dates and
// maturity amount change with its status)
updateCacheOnStatus('investment', (changed) => [
  investmentsEndpoints.util.updateQueryData('investmentHistory', undefined, (history) => {
    for (const page of history.pages)
      for (const i of page.items) if (investmentIdOf(i) === changed.id) i.status = changed.status;
  }),
  investmentsEndpoints.util.invalidateTags([{ type: 'Investment', id: changed.id }]),
]);
