import { serverApi } from '../../app/api';
import { LIST_PAGE_SIZE } from '../../app/pages';
import { auditQuery, type AuditEntry, type AuditFilters } from './auditApi';

/** A page of GET api/admin/audit: its entries and the next page's cursor ('' on the last page). */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string;
}

export const auditEndpoints = serverApi.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The trail under these filters, newest first, a page at a time. A screen that closes drops it, so the
     * trail opened again shows its loading state.
     */
    auditTrail: build.infiniteQuery<AuditPage, AuditFilters, string>({
      infiniteQueryOptions: {
        initialPageParam: '',
        getNextPageParam: (last) => last.nextCursor || undefined,
      },
      query: ({ queryArg, pageParam }) => ({
        url: `admin/audit?${auditQuery(queryArg, { limit: String(LIST_PAGE_SIZE), cursor: pageParam })}`,
      }),
      keepUnusedDataFor: 0,
    }),
  }),
});

export const { useAuditTrailInfiniteQuery } = auditEndpoints;
