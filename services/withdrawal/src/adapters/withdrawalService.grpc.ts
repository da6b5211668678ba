/**
 * gRPC surface of the withdrawal service: proto request -> use case -> proto response. Thin.
 *
 * Trust boundary: `caller` (user id from the session), `caller_role` (identity's Authenticate),
 * `caller_verified` and `caller_kyc_status` (identity's user view) are filled by the gateway, never by
 * a browser; admin powers are re-checked against caller_role, ownership against caller.user_id.
 */
import {
  WithdrawalServiceService,
  type RequestWithdrawalRequest,
  type Withdrawal,
  type WithdrawalServiceServer,
} from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import type { CloseAccountRequest } from '@meridian/proto/meridian/common/v1/common';
import { closeAccountInputOf } from '@meridian/platform/app/accountClosure';
import { heldRequestHandlers } from '@meridian/platform/app/heldRequest/grpc';
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
  const handlers = unaryHandlers(
    openingAnswers(ctx.personalData, {
      ...heldRequestHandlers(ctx, withdrawals, withdrawalToProto, {
        one: 'withdrawal',
        ofUser: 'listUserWithdrawals',
        submit: [
          'requestWithdrawal',
          (base, { callerKycStatus: kycStatus, amount, walletAddress }: RequestWithdrawalRequest) =>
            requestWithdrawal(ctx, { ...base, kycStatus, amount, walletAddress }),
        ],
      }),
      closeAccount: (req: CloseAccountRequest) => closeAccount(ctx, closeAccountInputOf(req)),
    }),
    { logger: options.logger },
  );
  const implementation: WithdrawalServiceServer = handlers;
  return { definition: WithdrawalServiceService, implementation };
}
