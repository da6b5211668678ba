import type { ThunkDispatch, UnknownAction, WithSlice } from '@reduxjs/toolkit';
import { createApi, type BaseQueryFn } from '@reduxjs/toolkit/query/react';
import { useDispatch } from 'react-redux';
import type { ListMore } from '../ui/MoreSentinel';
import { api as client, ApiError, REQUEST_TIMEOUT_MS, type ApiRequestConfig } from './apiClient';
import { LIST_PAGE_SIZE, pageUrl, type Page } from './pages';

/** What an endpoint asks of the base query: a path under /api, and optionally a body, headers, a timeout. */
export interface ApiArgs {
  url: string;
  method?: 'get' | 'post' | 'put' | 'patch' | 'delete';
  body?: unknown;
  headers?: Record<string, string>;
  /** Milliseconds (default REQUEST_TIMEOUT_MS). */
  timeout?: number;
}

/**
 * A failed request as the cache keeps it (plain data): `response` is set when the server answered, so
 * errorMessage (app/errors.ts), serverMessage and the intent keys read it as they read an ApiError.
 */
export interface ApiFailure {
  code: ApiError['code'];
  message: string;
  response?: { status: number; data: unknown };
}

/** Response headers the screens read (the next page's cursor of a paged list). */
export interface ApiMeta {
  headers: Record<string, string>;
}

export const isApiFailure = (error: unknown): error is ApiFailure =>
  typeof error === 'object' &&
  error !== null &&
  typeof (error as ApiFailure).code === 'string' &&
  typeof (error as ApiFailure).message === 'string';

function failureOf(error: unknown): ApiFailure {
  if (error instanceof ApiError)
    return {
      code: error.code,
      message: error.message,
      ...(error.response ? { response: { status: error.response.status, data: error.response.data } } : {}),
    };
  return { code: 'ERR_NETWORK', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The base query of every endpoint: app/apiClient.ts's request (XSRF cookie → header, credentials, the
 * session-ended handler on a 401) with a timeout on every request and RTK Query's abort signal.
 */
export const clientBaseQuery: BaseQueryFn<ApiArgs, unknown, ApiFailure, object, ApiMeta> = async (
  { url, method = 'get', body, headers, timeout = REQUEST_TIMEOUT_MS },
  { signal },
) => {
  const config: ApiRequestConfig = { signal, timeout, ...(headers ? { headers } : {}) };
  try {
    const res =
      method === 'get' || method === 'delete'
        ? await client[method](url, config)
        : await client[method](url, body, config);
    return { data: res.data, meta: { headers: res.headers ?? {} } };
  } catch (error) {
    return { error: failureOf(error) };
  }
};

export const TAGS = ['Deposit', 'Investment', 'Withdrawal', 'Plans', 'WithdrawableBalance'] as const;

/**
 * The server-data cache. Features add their endpoints with `serverApi.injectEndpoints`; live pushes update or
 * invalidate what is cached (features/live/liveCache.saga.ts). Its reducer and middleware join the store when
 * app/api.ts first loads (with the first screen that reads server data).
 */
export const serverApi = createApi({
  reducerPath: 'api',
  baseQuery: clientBaseQuery,
  tagTypes: TAGS,
  // a screen opened again asks the server again, so what it shows is current
  refetchOnMountOrArgChange: true,
  endpoints: () => ({}),
});

export type ServerApiSlice = WithSlice<typeof serverApi>;

/** The store's dispatch as RTK Query's thunks see it (`endpoint.initiate`, `util.updateQueryData`). */
export const useServerApiDispatch =
  useDispatch.withTypes<ThunkDispatch<ServerApiSlice, unknown, UnknownAction>>();

/** A page of a paged list from its answer: the list picked by `listOf`, the next page's cursor from X-Next-Cursor. */
export const pageOf =
  <T>(listOf: (data: unknown) => T[]) =>
  (data: unknown, meta: ApiMeta | undefined): Page<T> => ({
    items: listOf(data),
    nextCursor: meta?.headers['x-next-cursor'] ?? '',
  });

/**
 * An infinite query's definition for a paged list at `path` (app/pages.ts): the first page without a cursor,
 * each next one with the X-Next-Cursor of the last, until none comes back.
 */
export function cursorPaged<T>(path: string, listOf: (data: unknown) => T[]) {
  return {
    infiniteQueryOptions: {
      initialPageParam: '',
      getNextPageParam: (last: Page<T>) => last.nextCursor || undefined,
    },
    query: ({ pageParam }: { pageParam: string }): ApiArgs => ({
      url: pageUrl(path, { limit: LIST_PAGE_SIZE, cursor: pageParam || undefined }),
    }),
    transformResponse: pageOf(listOf),
  };
}

/** The part of an infinite query's hook result that pages it. */
export interface InfinitePaging {
  hasNextPage: boolean;
  isFetching: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): unknown;
}

/**
 * An infinite query's next pages for ui/MoreSentinel: loaded one at a time as the end of the list comes into
 * view; a failed page leaves the sentinel there, so scrolling again retries.
 */
export const moreOf = (query: InfinitePaging): ListMore => ({
  hasMore: query.hasNextPage,
  loading: query.isFetchingNextPage,
  loadMore: () => {
    if (query.hasNextPage && !query.isFetching) void query.fetchNextPage();
  },
});

/**
 * An infinite query's list as a screen shows it: the items of every page loaded (null until the first page
 * answers, none when it failed), the first page's failure, and the next pages (moreOf).
 */
export function pagedList<T>(
  query: InfinitePaging & { data?: { pages: Array<Page<T>> }; isError: boolean; error?: unknown },
) {
  const failed = query.isError && !query.data;
  return {
    items: failed ? [] : (query.data?.pages.flatMap((p) => p.items) ?? null),
    failed,
    error: failed ? query.error : undefined,
    more: moreOf(query),
  };
}
