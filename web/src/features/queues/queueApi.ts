import type { InfiniteData } from '@reduxjs/toolkit/query';
import { cursorPaged, serverApi } from '../../app/api';
import type { Page } from '../../app/pages';
import type { User } from '../auth/authTypes';
import type { Deposit } from '../deposits/depositTypes';
import type { Investment } from '../investments/investmentTypes';
import { updateCacheOnPush } from '../live/liveCache.saga';
import { asQueueItemAdded, asQueueItemDecided, LIVE_EVENTS, type QueueName } from '../live/liveEvents';
import type { Withdrawal } from '../withdrawals/withdrawalTypes';
import { listFrom } from './lists';
import { addQueueItem, removeQueueItem } from './queueItems';

/** How one admin queue's GET answers: its route and the list in the body (spec §7 names the key). */
interface QueueRoute<T> {
  path: string;
  /** The queue's elements from an answer's body; a pushed item (the same shape) is read as a list of one. */
  listOf(data: unknown): T[];
}

/** The queue at `path` whose answers hold its list under `key`. */
function queueRoute<T>(path: string, key: string): QueueRoute<T> {
  return { path, listOf: (data) => listFrom<T>(data, key) };
}

const DEPOSITS = queueRoute<Deposit>('payments/pending-deposit', 'deposit');
const INVESTMENTS = queueRoute<Investment>('invest/adminPendingInvestment', 'pendingInvestments');
const WITHDRAWALS = queueRoute<Withdrawal>('withDraw/pending', 'withdrawals');
/** Each user with kyc.frontDoc / kyc.backDoc links. */
const KYC = queueRoute<User>('users/kyc/pending', 'pendingUsers');

/**
 * The admin queues, oldest first, a page at a time. A screen that closes drops its queue (no cached data
 * outlives it), so a queue opened again shows its loading state until the first page answers.
 */
export const queueEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => {
    const queueQuery = <T>(route: QueueRoute<T>) =>
      build.infiniteQuery<Page<T>, void, string>({
        ...cursorPaged(route.path, route.listOf),
        keepUnusedDataFor: 0,
      });
    return {
      /** GET api/payments/pending-deposit -> { deposit: Deposit[] }. */
      pendingDeposits: queueQuery(DEPOSITS),
      /** GET api/invest/adminPendingInvestment -> { pendingInvestments: Investment[] }. */
      pendingInvestments: queueQuery(INVESTMENTS),
      /** GET api/withDraw/pending -> { withdrawals: Withdrawal[] }. */
      pendingWithdrawals: queueQuery(WITHDRAWALS),
      /** GET api/users/kyc/pending -> { pendingUsers: User[] }. */
      pendingKyc: queueQuery(KYC),
    };
  },
});

export const {
  usePendingDepositsInfiniteQuery,
  usePendingInvestmentsInfiniteQuery,
  usePendingWithdrawalsInfiniteQuery,
  usePendingKycInfiniteQuery,
} = queueEndpoints;

/** A change to one queue's cached pages, whatever its element type. */
type QueueRecipe = <T extends object>(route: QueueRoute<T>) => (queue: InfiniteData<Page<T>, string>) => void;

/** RTK Query's update of the named queue's cache (nothing while no screen has it open). */
function updateQueue(queue: QueueName, recipe: QueueRecipe) {
  switch (queue) {
    case 'deposits':
      return queueEndpoints.util.updateQueryData('pendingDeposits', undefined, recipe(DEPOSITS));
    case 'investments':
      return queueEndpoints.util.updateQueryData('pendingInvestments', undefined, recipe(INVESTMENTS));
    case 'withdrawals':
      return queueEndpoints.util.updateQueryData('pendingWithdrawals', undefined, recipe(WITHDRAWALS));
    case 'kyc':
      return queueEndpoints.util.updateQueryData('pendingKyc', undefined, recipe(KYC));
  }
}

/** This admin decided an item: it leaves its queue at once (the gateway also tells every admin, queue/itemDecided). */
export const queueItemDecided = (queue: QueueName, id: string) =>
  updateQueue(queue, () => (pages) => removeQueueItem(pages, id));

// live pushes: a new pending request joins its open queue, a decided one leaves it
updateCacheOnPush(({ event, payload }) => {
  if (event === LIVE_EVENTS.queueItemAdded) {
    const added = asQueueItemAdded(payload);
    if (!added) return [];
    return [
      updateQueue(added.queue, (route) => (pages) => {
        for (const item of route.listOf([added.item])) addQueueItem(pages, item);
      }),
    ];
  }
  if (event === LIVE_EVENTS.queueItemDecided) {
    const decided = asQueueItemDecided(payload);
    return decided ? [queueItemDecided(decided.queue, decided.id)] : [];
  }
  return [];
});
