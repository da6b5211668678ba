import { cursorPaged, serverApi } from '../../app/api';
import type { Page } from '../../app/pages';
import { listFrom } from '../queues/lists';
import type { HistoryItem } from './history';

export const historyEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => ({
    /**
     * GET api/invest/getTransactionHistory -> HistoryItem[] (or { history }), the caller's own, newest first, a
     * page at a time. A screen that closes drops it, so the history opened again shows its loading state.
     */
    transactionHistory: build.infiniteQuery<Page<HistoryItem>, void, string>({
      ...cursorPaged('invest/getTransactionHistory', (data) =>
        listFrom<HistoryItem>(data, 'history', 'transactions'),
      ),
      keepUnusedDataFor: 0,
    }),
  }),
});

export const { useTransactionHistoryInfiniteQuery } = historyEndpoints;
