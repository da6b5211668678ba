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
  type DecideWithdrawalResponse,
  type GetWithdrawalRequest,
  type ListPendingRequest,
  type ListUserWithdrawalsRequest,
  type ListWithdrawalsResponse,
  type RequestWithdrawalRequest,
  type RequestWithdrawalResponse,
  type Withdrawal,
  type WithdrawalServiceServer,
} from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { unaryHandlers, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { type WithdrawalContext, actorOf } from '../app/context.js';
import {
  type WithdrawalView,
  decideWithdrawal,
  getWithdrawal,
  listPending,
  listUserWithdrawals,
  requestWithdrawal,
} from '../app/withdrawals.js';

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
});

export function withdrawalGrpcService(
  ctx: WithdrawalContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    {
      async requestWithdrawal(req: RequestWithdrawalRequest): Promise<RequestWithdrawalResponse> {
        const { message, withdrawal } = await requestWithdrawal(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          isVerified: req.callerVerified,
          kycStatus: req.callerKycStatus,
          amount: req.amount,
          walletAddress: req.walletAddress,
          withdrawalId: req.withdrawalId || undefined,
        });
        return { message, withdrawal: withdrawalToProto(withdrawal) };
      },
      async listPending(req: ListPendingRequest): Promise<ListWithdrawalsResponse> {
        return {
          withdrawals: (await listPending(ctx, { actor: actorOf(req.caller, req.callerRole) })).map(
            withdrawalToProto,
          ),
        };
      },
      async listUserWithdrawals(req: ListUserWithdrawalsRequest): Promise<ListWithdrawalsResponse> {
        const list = await listUserWithdrawals(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          userId: req.userId || undefined,
        });
        return { withdrawals: list.map(withdrawalToProto) };
      },
      async getWithdrawal(req: GetWithdrawalRequest): Promise<Withdrawal> {
        return withdrawalToProto(
          await getWithdrawal(ctx, {
            actor: actorOf(req.caller, req.callerRole),
            withdrawalId: req.withdrawalId,
          }),
        );
      },
      async approveWithdrawal(req: DecideWithdrawalRequest): Promise<DecideWithdrawalResponse> {
        const { message, withdrawal } = await decideWithdrawal(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          withdrawalId: req.withdrawalId,
          decision: 'approve',
        });
        return { message, withdrawal: withdrawalToProto(withdrawal) };
      },
      async rejectWithdrawal(req: DecideWithdrawalRequest): Promise<DecideWithdrawalResponse> {
        const { message, withdrawal } = await decideWithdrawal(ctx, {
          actor: actorOf(req.caller, req.callerRole),
          withdrawalId: req.withdrawalId,
          decision: 'reject',
        });
        return { message, withdrawal: withdrawalToProto(withdrawal) };
      },
    },
    { logger: options.logger },
  );
  const implementation: WithdrawalServiceServer = handlers;
  return { definition: WithdrawalServiceService, implementation };
}
