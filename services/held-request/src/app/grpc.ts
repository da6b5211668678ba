/**
 * The gRPC operations every held-request service serves, each the caller's request (actor from `caller` and
 * `caller_role`, as the gateway filled them) answered with the kind's proto message. Each service's adapter
 * serves them under its proto's names and fields (withdrawal: getWithdrawal, listUserWithdrawals, listPending,
 * countPending, approveWithdrawal, rejectWithdrawal, each by `withdrawalId`, lists answered as `withdrawals`),
 * beside the kind's request method (startInvest, requestWithdrawal) and its own methods (investment: plans,
 * maturity).
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import type { Actor } from '@meridian/platform/app/requestContext';
import type { Page } from '@meridian/platform/ports/pages';
import type { Decision, HeldRequestContext, HeldRequests, OwingDoc } from './heldRequests.js';
import { actorOf } from './kit.js';
import type { WithUser } from './userDirectory.js';

type CallerRequest = { caller?: Caller | undefined; callerRole: string };
/** A list request: paged by `limit` and `cursor` (0 and "": every item; platform ports/pages.ts). */
type ListRequest = CallerRequest & { limit?: number; cursor?: string };
/** A page of the kind's proto messages; the adapter answers it under the kind's plural (`withdrawals`). */
export type ProtoPage<P> = { items: P[]; nextCursor: string; itemCursors: string[] };

/** What the kind's request use case gets of its proto request's caller. */
export type SubmitBase = { actor: Actor; isVerified: boolean };

export interface HeldRequestRpcs<P> {
  /** The caller of the kind's request method (startInvest, requestWithdrawal). */
  submitBase(request: CallerRequest & { callerVerified: boolean }): SubmitBase;
  get(request: CallerRequest, requestId: string): Promise<P>;
  /** The owner's list (`userId` empty: the caller's own). */
  listOfUser(request: ListRequest & { userId: string }): Promise<ProtoPage<P>>;
  listPending(request: ListRequest): Promise<ProtoPage<P>>;
  countPending(request: CallerRequest): Promise<{ count: number }>;
  decide(
    decision: Decision,
    request: CallerRequest,
    requestId: string,
  ): Promise<{ message: string; view: P }>;
}

export function heldRequestRpcs<Ctx extends HeldRequestContext, D extends OwingDoc, P>(
  ctx: Ctx,
  requests: HeldRequests<Ctx, D>,
  toProto: (view: WithUser<D>) => P,
): HeldRequestRpcs<P> {
  const actor = (request: CallerRequest) => actorOf(request.caller, request.callerRole);
  const protoPage = (page: Page<WithUser<D>>): ProtoPage<P> => ({
    items: page.items.map(toProto),
    nextCursor: page.nextCursor,
    itemCursors: page.itemCursors ?? [],
  });
  const paging = (request: ListRequest) => ({ limit: request.limit, cursor: request.cursor });
  return {
    submitBase: (request) => ({ actor: actor(request), isVerified: request.callerVerified }),
    get: async (request, requestId) => toProto(await requests.get(ctx, { actor: actor(request), requestId })),
    listOfUser: async (request) =>
      protoPage(
        await requests.listOfUser(ctx, {
          actor: actor(request),
          userId: request.userId || undefined,
          ...paging(request),
        }),
      ),
    listPending: async (request) =>
      protoPage(await requests.listPending(ctx, { actor: actor(request), ...paging(request) })),
    countPending: async (request) => ({ count: await requests.countPending(ctx, { actor: actor(request) }) }),
    decide: async (decision, request, requestId) => {
      const { message, view } = await requests.decide(ctx, { actor: actor(request), requestId, decision });
      return { message, view: toProto(view) };
    },
  };
}
