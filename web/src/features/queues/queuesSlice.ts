import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { eventReceived } from '../live/liveSlice';
import { asQueueItemAdded, asQueueItemDecided, LIVE_EVENTS, type QueueName } from '../live/liveEvents';

/** One element of an admin queue as its GET list answers it (deposit, investment, withdrawal or KYC user). */
export type QueueItem = Record<string, unknown> & { _id?: string };

export interface QueueState {
  items: QueueItem[];
  /** The first GET of this queue answered since the screen opened. */
  loaded: boolean;
}

export type QueuesState = Record<QueueName, QueueState>;

const empty = (): QueueState => ({ items: [], loaded: false });
const initialState: QueuesState = {
  deposits: empty(),
  investments: empty(),
  withdrawals: empty(),
  kyc: empty(),
};

/** Deposits are keyed by transactionId or _id, investments by investmentId or _id, the rest by _id. */
export function queueItemId(item: QueueItem): string {
  const id = item._id ?? item.transactionId ?? item.investmentId ?? item.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}

const hasId = (items: QueueItem[], id: string) =>
  id !== '' && items.some((i) => queueItemId(i) === id || i._id === id);
const withoutId = (items: QueueItem[], id: string) =>
  items.filter(
    (i) => queueItemId(i) !== id && i._id !== id && i.transactionId !== id && i.investmentId !== id,
  );

const queuesSlice = createSlice({
  name: 'queues',
  initialState,
  reducers: {
    /** The queue's GET answered: it replaces what the screen shows. */
    queueFetched(state, action: PayloadAction<{ queue: QueueName; items: QueueItem[] }>) {
      state[action.payload.queue] = { items: action.payload.items, loaded: true };
    },
    /**
     * The next page of the queue arrived (the admin scrolled to the end): its items go after those shown,
     * except any already there (a live push may have brought one first).
     */
    queuePageAppended(state, action: PayloadAction<{ queue: QueueName; items: QueueItem[] }>) {
      const q = state[action.payload.queue];
      for (const item of action.payload.items) if (!hasId(q.items, queueItemId(item))) q.items.push(item);
    },
    /** This admin decided an item here; the gateway also tells every other admin (queue/itemDecided). */
    queueItemDecided(state, action: PayloadAction<{ queue: QueueName; id: string }>) {
      const q = state[action.payload.queue];
      q.items = withoutId(q.items, action.payload.id);
    },
  },
  extraReducers: (builder) => {
    builder.addCase(eventReceived, (state, action) => {
      const { event, payload } = action.payload;
      if (event === LIVE_EVENTS.queueItemAdded) {
        const added = asQueueItemAdded(payload);
        if (!added) return;
        const q = state[added.queue];
        // Idempotent: a replayed or already-fetched item is not shown twice. Queues read oldest first.
        if (!hasId(q.items, queueItemId(added.item))) q.items.push(added.item);
      } else if (event === LIVE_EVENTS.queueItemDecided) {
        const decided = asQueueItemDecided(payload);
        if (!decided) return;
        const q = state[decided.queue];
        q.items = withoutId(q.items, decided.id);
      }
    });
  },
});

export const { queueFetched, queuePageAppended, queueItemDecided } = queuesSlice.actions;
export const queuesReducer = queuesSlice.reducer;
