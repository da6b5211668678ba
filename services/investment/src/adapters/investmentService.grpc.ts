/**
 * gRPC surface of the investment service: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: `caller` (user id from the session), `caller_role` (identity's Authenticate) and
 * `caller_verified` (identity's user view) are filled by the gateway, never by a browser; admin powers
 * are re-checked against caller_role, ownership against caller.user_id.
 */
import {
  InvestmentServiceService,
  type Investment,
  type InvestmentServiceServer,
  type ListPlansRequest,
  type ListPlansResponse,
  type SettleDueForUserRequest,
  type SettleDueForUserResponse,
  type StartInvestRequest,
} from '@meridian/proto/meridian/investment/v1/investment';
import { heldRequestHandlers } from '@meridian/platform/app/heldRequest/grpc';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { type InvestmentContext, actorOf } from '../app/context.js';
import {
  type InvestmentView,
  investments,
  listPlans,
  settleDueForUser,
  startInvest,
} from '../app/investments.js';

/** An investment as it is answered: its owner's name and email opened (the directory keeps them sealed). */
async function openInvestment(ctx: InvestmentContext, investment: Investment): Promise<Investment> {
  return {
    ...investment,
    userName: await ctx.personalData.open(investment.userName),
    userEmail: await ctx.personalData.open(investment.userEmail),
  };
}

/** The personal fields of every investment an answer carries, opened. */
async function openAnswer(ctx: InvestmentContext, answer: unknown): Promise<unknown> {
  if (typeof answer !== 'object' || answer === null) return answer;
  if (typeof (answer as Investment).investmentId === 'string')
    return openInvestment(ctx, answer as Investment);
  const opened: Record<string, unknown> = { ...answer };
  for (const [field, value] of Object.entries(answer)) {
    if (field === 'investment' && value) opened[field] = await openInvestment(ctx, value as Investment);
    if (Array.isArray(value) && (field === 'investments' || field === 'matured'))
      opened[field] = await Promise.all(value.map((i: Investment) => openInvestment(ctx, i)));
  }
  return opened;
}

/** Each handler's answer with its personal fields opened. */
function opening<H extends Record<string, (request: never) => unknown>>(
  ctx: InvestmentContext,
  handlers: H,
): H {
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handle]) => [
      name,
      async (request: never) => openAnswer(ctx, await handle(request)),
    ]),
  ) as H;
}

export const investmentToProto = (d: InvestmentView): Investment => ({
  investmentId: d.investmentId,
  userId: d.userId,
  userName: d.userName,
  userEmail: d.userEmail,
  planName: d.planName,
  amountCents: d.amountCents,
  rateBps: d.rateBps,
  durationMs: d.durationMs,
  status: d.status,
  maturityAmountCents: d.maturityAmountCents ?? 0,
  startDate: d.startDate ?? '',
  endDate: d.endDate ?? '',
  requestedAt: d.requestedAt,
  decidedAt: d.decidedAt ?? '',
  decidedBy: d.decidedBy ?? '',
  maturedAt: d.maturedAt ?? '',
  refusal: d.refusal ?? '',
  initiatedBy: d.initiatedBy ?? '',
});

export function investmentGrpcService(
  ctx: InvestmentContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    opening(ctx, {
      listPlans(_req: ListPlansRequest): ListPlansResponse {
        return {
          plans: listPlans(ctx).map((p) => ({
            name: p.name,
            minAmountCents: p.minAmountCents,
            maxAmountCents: p.maxAmountCents,
            rateBps: p.rateBps,
            durationMs: p.durationMs,
            rangeText: p.rangeText,
          })),
        };
      },
      ...heldRequestHandlers(ctx, investments, investmentToProto, {
        one: 'investment',
        ofUser: 'investmentHistory',
        submit: [
          'startInvest',
          (base, { planName, amount }: StartInvestRequest) => startInvest(ctx, { ...base, planName, amount }),
        ],
      }),
      async settleDueForUser(req: SettleDueForUserRequest): Promise<SettleDueForUserResponse> {
        const { message, matured } = await settleDueForUser(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
        });
        return { message, matured: matured.map(investmentToProto), settledCount: matured.length };
      },
    }),
    { logger: options.logger },
  );
  const implementation: InvestmentServiceServer = handlers;
  return { definition: InvestmentServiceService, implementation };
}
