/**
 * The gRPC methods every held-request service has, by its proto's naming (for the kind 'investment':
 * getInvestment, approveInvestment, rejectInvestment taking `investmentId`, listPending answering
 * `{ investments }`, and the owner's list under its own name, e.g. investmentHistory), each the caller's
 * request (actor from `caller` and `caller_role`, as the gateway filled them) answered with the kind's
 * proto message; and the kind's request method (startInvest, requestWithdrawal) around its use case. The
 * service's adapter adds its own methods (investment: plans, maturity).
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import type { Actor } from '../requestContext.js';
import type { Page } from '../../ports/pages.js';
import type { Decision, HeldRequestContext, HeldRequests, OwingDoc } from './heldRequests.js';
import { actorOf } from './kit.js';
import type { WithUser } from './userDirectory.js';

type CallerRequest = { caller?: Caller | undefined; callerRole: string };
/** A list request: paged by `limit` and `cursor` (0 and "": every item; platform ports/pages.ts). */
type ListRequest = CallerRequest & { limit?: number; cursor?: string };
type ById<One extends string> = CallerRequest & Record<`${One}Id`, string>;
type Listed<One extends string, P> = Promise<
  Record<`${One}s`, P[]> & { nextCursor: string; itemCursors: string[] }
>;

/** What the kind's request method gets of its proto request: the caller and the (optional) request id. */
export type SubmitBase<One extends string> = { actor: Actor; isVerified: boolean } & Partial<
  Record<`${One}Id`, string>
>;
type SubmitRequest<One extends string> = CallerRequest & { callerVerified: boolean } & Record<
    `${One}Id`,
    string
  >;
type Answered<One extends string, V> = Promise<{ message: string } & Record<One, V>>;

export type HeldRequestHandlers<One extends string, OfUser extends string, P> = Record<
  `get${Capitalize<One>}`,
  (request: ById<One>) => Promise<P>
> &
  Record<OfUser, (request: ListRequest & { userId: string }) => Listed<One, P>> &
  Record<'listPending', (request: ListRequest) => Listed<One, P>> &
  Record<'countPending', (request: CallerRequest) => Promise<{ count: number }>> &
  Record<`approve${Capitalize<One>}` | `reject${Capitalize<One>}`, (request: ById<One>) => Answered<One, P>>;

export function heldRequestHandlers<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  P,
  const One extends string,
  const OfUser extends string,
  const Submit extends string,
  Req extends SubmitRequest<One>,
>(
  ctx: Ctx,
  requests: HeldRequests<Ctx, D>,
  toProto: (view: WithUser<D>) => P,
  names: {
    one: One;
    ofUser: OfUser;
    /** The kind's request method and its use case, given the caller and the id from the proto request. */
    submit: [Submit, (base: SubmitBase<One>, request: Req) => Answered<One, WithUser<D>>];
  },
): HeldRequestHandlers<One, OfUser, P> & Record<Submit, (request: Req) => Answered<One, P>> {
  const { one } = names;
  const One = one.charAt(0).toUpperCase() + one.slice(1);
  const idOf = (request: ById<One>) => (request as Record<string, string>)[`${one}Id`];
  const actor = (request: CallerRequest) => actorOf(request.caller, request.callerRole);
  const list = (page: Page<WithUser<D>>) => ({
    [`${one}s`]: page.items.map(toProto),
    nextCursor: page.nextCursor,
    itemCursors: page.itemCursors ?? [],
  });
  const paging = (request: ListRequest) => ({ limit: request.limit, cursor: request.cursor });
  const decide = (decision: Decision) => async (request: ById<One>) => {
    const { message, view } = await requests.decide(ctx, {
      actor: actor(request),
      requestId: idOf(request),
      decision,
    });
    return { message, [one]: toProto(view) };
  };
  const [submit, run] = names.submit;
  return {
    [submit]: async (request: Req) => {
      const base = {
        actor: actor(request),
        isVerified: request.callerVerified,
        [`${one}Id`]: idOf(request) || undefined,
      };
      const answer = await run(base as SubmitBase<One>, request);
      return { message: answer.message, [one]: toProto(answer[one]) };
    },
    [`get${One}`]: async (request: ById<One>) =>
      toProto(await requests.get(ctx, { actor: actor(request), requestId: idOf(request) })),
    [names.ofUser]: async (request: ListRequest & { userId: string }) =>
      list(
        await requests.listOfUser(ctx, {
          actor: actor(request),
          userId: request.userId || undefined,
          ...paging(request),
        }),
      ),
    listPending: async (request: ListRequest) =>
      list(await requests.listPending(ctx, { actor: actor(request), ...paging(request) })),
    countPending: async (request: CallerRequest) => ({
      count: await requests.countPending(ctx, { actor: actor(request) }),
    }),
    [`approve${One}`]: decide('approve'),
    [`reject${One}`]: decide('reject'),
  } as HeldRequestHandlers<One, OfUser, P> & Record<Submit, (request: Req) => Answered<One, P>>;
}
