/**
 * gRPC surface of the withdrawal service: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: `caller` (user id from the session), `caller_role` (identity's Authenticate),
 * `caller_verified` and `caller_kyc_status` (identity's user view) are filled by the gateway, never by
 * a browser; admin powers are re-checked against caller_role, ownership against caller.user_id.
 */
import {
  WithdrawalServiceService,
  type DecideWithdrawalRequest,
  type GetWithdrawalRequest,
  type RequestWithdrawalRequest,
  type Withdrawal,
  type WithdrawalServiceServer,
} from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import type {
  CloseAccountRequest,
  QueueCountRequest,
  QueuePageRequest,
  UserPageRequest,
} from '@meridian/proto/meridian/common/v1/common';
import { closeAccountInputOf } from '@meridian/platform/app/accountClosure';
import { heldRequestRpcs } from '@meridian/held-request/app/grpc';
import type { Decision } from '@meridian/held-request/app/heldRequests';
import { openingAnswers } from '@meridian/platform/personalData';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { WithdrawalContext } from '../app/context.js';
import { type WithdrawalView, closeAccount, requestWithdrawal, withdrawals } from '../app/withdrawals.js';

export const withdrawalToProto = (d: WithdrawalView): Withdrawal => ({
  withdrawalId: d.withdrawalId,
  userId: d.userId,
  userName: d.userName,
  userEmail: d.userEmail,
  amountCents: d.amountCents,
  walletAddress: d.walletAddress,
  network: d.network,
  status: d.status,
  requestDate: d.requestDate,
  decidedAt: d.decidedAt ?? '',
  decidedBy: d.decidedBy ?? '',
  refusal: d.refusal ?? '',
  initiatedBy: d.initiatedBy ?? '',
});

export function withdrawalGrpcService(
  ctx: WithdrawalContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  const held = heldRequestRpcs(ctx, withdrawals, withdrawalToProto);
  const decide = async (decision: Decision, req: DecideWithdrawalRequest) => {
    const { message, view } = await held.decide(decision, req, req.withdrawalId);
    return { message, withdrawal: view };
  };
  const handlers = unaryHandlers(
    openingAnswers(ctx.personalData, {
      requestWithdrawal: async (req: RequestWithdrawalRequest) => {
        const { message, withdrawal } = await requestWithdrawal(ctx, {
          ...held.submitBase(req),
          withdrawalId: req.withdrawalId || undefined,
          kycStatus: req.callerKycStatus,
          amount: req.amount,
          walletAddress: req.walletAddress,
        });
        return { message, withdrawal: withdrawalToProto(withdrawal) };
      },
      getWithdrawal: (req: GetWithdrawalRequest) => held.get(req, req.withdrawalId),
      listUserWithdrawals: async (req: UserPageRequest) => {
        const { items, ...page } = await held.listOfUser(req);
        return { withdrawals: items, ...page };
      },
      listPending: async (req: QueuePageRequest) => {
        const { items, ...page } = await held.listPending(req);
        return { withdrawals: items, ...page };
      },
      countPending: (req: QueueCountRequest) => held.countPending(req),
      approveWithdrawal: (req: DecideWithdrawalRequest) => decide('approve', req),
      rejectWithdrawal: (req: DecideWithdrawalRequest) => decide('reject', req),
      closeAccount: (req: CloseAccountRequest) => closeAccount(ctx, closeAccountInputOf(req)),
    }),
    { logger: options.logger },
  );
  const implementation: WithdrawalServiceServer = handlers;
  return { definition: WithdrawalServiceService, implementation };
}
