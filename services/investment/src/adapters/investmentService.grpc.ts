/**
 * gRPC surface of the investment service: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: `caller` (user id from the session), `caller_role` (identity's Authenticate) and
 * `caller_verified` (identity's user view) are filled by the gateway, never by a browser; admin powers
 * are re-checked against caller_role, ownership against caller.user_id.
 */
import {
  InvestmentServiceService,
  type DecideInvestmentRequest,
  type DecideInvestmentResponse,
  type GetInvestmentRequest,
  type Investment,
  type InvestmentHistoryRequest,
  type InvestmentServiceServer,
  type ListInvestmentsResponse,
  type ListPendingRequest,
  type ListPlansRequest,
  type ListPlansResponse,
  type SettleDueForUserRequest,
  type SettleDueForUserResponse,
  type StartInvestRequest,
  type StartInvestResponse,
} from '@meridian/proto/meridian/investment/v1/investment';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { type InvestmentContext, actorOf } from '../app/context.js';
import {
  type InvestmentView,
  decideInvestment,
  getInvestment,
  investmentHistory,
  listPending,
  listPlans,
  settleDueForUser,
  startInvest,
} from '../app/investments.js';

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
});

export function investmentGrpcService(
  ctx: InvestmentContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    {
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
      async startInvest(req: StartInvestRequest): Promise<StartInvestResponse> {
        const { message, investment } = await startInvest(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          isVerified: req.callerVerified,
          planName: req.planName,
          amount: req.amount,
          investmentId: req.investmentId || undefined,
        });
        return { message, investment: investmentToProto(investment) };
      },
      async investmentHistory(req: InvestmentHistoryRequest): Promise<ListInvestmentsResponse> {
        const list = await investmentHistory(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
        });
        return { investments: list.map(investmentToProto) };
      },
      async getInvestment(req: GetInvestmentRequest): Promise<Investment> {
        return investmentToProto(
          await getInvestment(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            investmentId: req.investmentId,
          }),
        );
      },
      async listPending(req: ListPendingRequest): Promise<ListInvestmentsResponse> {
        const list = await listPending(ctx, { actor: actorOf(req.caller, req.callerRole) });
        return { investments: list.map(investmentToProto) };
      },
      async approveInvestment(req: DecideInvestmentRequest): Promise<DecideInvestmentResponse> {
        const { message, investment } = await decideInvestment(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          investmentId: req.investmentId,
          decision: 'approve',
        });
        return { message, investment: investmentToProto(investment) };
      },
      async rejectInvestment(req: DecideInvestmentRequest): Promise<DecideInvestmentResponse> {
        const { message, investment } = await decideInvestment(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          investmentId: req.investmentId,
          decision: 'reject',
        });
        return { message, investment: investmentToProto(investment) };
      },
      async settleDueForUser(req: SettleDueForUserRequest): Promise<SettleDueForUserResponse> {
        const { message, matured } = await settleDueForUser(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
        });
        return { message, matured: matured.map(investmentToProto), settledCount: matured.length };
      },
    },
    { logger: options.logger },
  );
  const implementation: InvestmentServiceServer = handlers;
  return { definition: InvestmentServiceService, implementation };
}
