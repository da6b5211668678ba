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
import type { CloseAccountRequest } from '@meridian/proto/meridian/common/v1/common';
import { heldRequestHandlers } from '@meridian/platform/app/heldRequest/grpc';
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
      ...heldRequestHandlers(ctx, investments, investmentToProto, {
        one: 'investment',
        ofUser: 'investmentHistory',
        submit: [
          'startInvest',
          (base, { planName, amount }: StartInvestRequest) => startInvest(ctx, { ...base, planName, amount }),
        ],
      }),
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
