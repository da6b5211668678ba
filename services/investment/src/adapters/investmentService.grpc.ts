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
  type GetInvestmentRequest,
  type Investment,
  type InvestmentServiceServer,
  type ListPlansRequest,
  type ListPlansResponse,
  type SettleDueForUserRequest,
  type SettleDueForUserResponse,
  type StartInvestRequest,
} from '@meridian/proto/meridian/investment/v1/investment';
import type {
  CloseAccountRequest,
  QueueCountRequest,
  QueuePageRequest,
  UserPageRequest,
} from '@meridian/proto/meridian/common/v1/common';
import { heldRequestRpcs } from '@meridian/held-request/app/grpc';
import type { Decision } from '@meridian/held-request/app/heldRequests';
import { openingAnswers } from '@meridian/platform/personalData';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { type InvestmentContext, actorOf } from '../app/context.js';
import { closeAccountInputOf } from '@meridian/platform/app/accountClosure';
import {
  type InvestmentView,
  closeAccount,
  investments,
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
  initiatedBy: d.initiatedBy ?? '',
});

export function investmentGrpcService(
  ctx: InvestmentContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  const held = heldRequestRpcs(ctx, investments, investmentToProto);
  const decide = async (decision: Decision, req: DecideInvestmentRequest) => {
    const { message, view } = await held.decide(decision, req, req.investmentId);
    return { message, investment: view };
  };
  const handlers = unaryHandlers(
    openingAnswers(ctx.personalData, {
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
      startInvest: async (req: StartInvestRequest) => {
        const { message, investment } = await startInvest(ctx, {
          ...held.submitBase(req),
          investmentId: req.investmentId || undefined,
          planName: req.planName,
          amount: req.amount,
        });
        return { message, investment: investmentToProto(investment) };
      },
      getInvestment: (req: GetInvestmentRequest) => held.get(req, req.investmentId),
      investmentHistory: async (req: UserPageRequest) => {
        const { items, ...page } = await held.listOfUser(req);
        return { investments: items, ...page };
      },
      listPending: async (req: QueuePageRequest) => {
        const { items, ...page } = await held.listPending(req);
        return { investments: items, ...page };
      },
      countPending: (req: QueueCountRequest) => held.countPending(req),
      approveInvestment: (req: DecideInvestmentRequest) => decide('approve', req),
      rejectInvestment: (req: DecideInvestmentRequest) => decide('reject', req),
      closeAccount: (req: CloseAccountRequest) => closeAccount(ctx, closeAccountInputOf(req)),
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
