import { serverApi } from '../../app/api';
import { api } from '../../app/apiClient';
import { withIntentKey } from '../../app/intentKey';
import { updateCacheOnStatus } from '../live/liveCache.saga';
import { messageFrom, recordFrom } from '../queues/lists';
import type { Deposit } from './depositTypes';

const enc = encodeURIComponent;

export const depositsApi = {
  /**
   * POST api/payments/create { amount, addressId? } -> { message }. The amount is the text typed, e.g. "250.50";
   * addressId names the deposit address support gave in the chat that the funds were sent to; `key` is the
   * intent's Idempotency-Key (app/intentKey.ts).
   */
  async create(amount: string, addressId?: string, key?: string): Promise<string> {
    return messageFrom(
      (
        await api.post(
          'payments/create',
          addressId ? { amount, addressId } : { amount },
          key ? withIntentKey(key) : undefined,
        )
      ).data,
    );
  },
};

/** A deposit as the detail route answers it (bare, or under `transaction` or `payment`); null without a status. */
function depositOf(data: unknown): Deposit | null {
  const d = recordFrom<Deposit>(data, 'transaction', 'payment');
  return d && d.status !== undefined ? d : null;
}

export type DepositDecision = 'confirm' | 'reject';

export const depositsEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => ({
    /** GET api/payments/viewPaymentStatus/{transactionId} -> Deposit. */
    deposit: build.query<Deposit | null, string>({
      query: (transactionId) => ({ url: `payments/viewPaymentStatus/${enc(transactionId)}` }),
      transformResponse: depositOf,
      providesTags: (_result, _error, transactionId) => [{ type: 'Deposit', id: transactionId }],
    }),
    /** PATCH api/payments/confirmPayment | rejectPayment { transactionId, status, notes } -> { message }. */
    decideDeposit: build.mutation<
      string,
      /** `detailKey`: the id the detail was opened with, when it differs from the deposit's own id. */
      { transactionId: string; decision: DepositDecision; notes: string; detailKey?: string }
    >({
      query: ({ transactionId, decision, notes }) => ({
        method: 'patch',
        url: decision === 'confirm' ? 'payments/confirmPayment' : 'payments/rejectPayment',
        body: { transactionId, status: decision === 'confirm' ? 'Confirmed' : 'Rejected', notes },
      }),
      transformResponse: messageFrom,
      // the decided deposit shows its new status (and the notes given) without another GET
      async onQueryStarted(
        { transactionId, decision, notes, detailKey },
        { dispatch, queryFulfilled },
      ): Promise<void> {
        try {
          await queryFulfilled;
        } catch {
          return; // refused or failed: the screen says why and shows the item unchanged
        }
        dispatch(
          depositsEndpoints.util.updateQueryData('deposit', detailKey ?? transactionId, (d) => {
            if (!d) return;
            d.status = decision === 'confirm' ? 'Confirmed' : 'Rejected';
            d.notes = notes || d.notes;
          }),
        );
      },
    }),
  }),
});

export const { useDepositQuery, useDecideDepositMutation } = depositsEndpoints;

// a deposit decided elsewhere: its cached detail shows the new status
updateCacheOnStatus('deposit', (changed) => [
  depositsEndpoints.util.updateQueryData('deposit', changed.id, (d) => {
    if (d) d.status = changed.status;
  }),
]);
