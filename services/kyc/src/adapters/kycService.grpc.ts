/** gRPC surface of the kyc service: proto request -> use case -> proto response. Thin. */
import type {
  Caller,
  MessageResponse,
  QueueCountRequest,
  QueueCountResponse,
  QueuePageRequest,
} from '@meridian/proto/meridian/common/v1/common';
import {
  KycServiceService,
  KycStatus,
  type ApproveRequest,
  type GetStatusRequest,
  type GetStatusResponse,
  type KycServiceServer,
  type ListPendingResponse,
  type RejectRequest,
} from '@meridian/proto/meridian/kyc/v1/kyc';
import { unaryHandlers, type CallContext, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import {
  approveKyc,
  getStatus,
  countPending,
  listPending,
  rejectKyc,
  type KycCaller,
  type KycContext,
} from '../app/kycCases.js';
import type { KycStatus as DomainStatus } from '../domain/kycCase.js';

const STATUS: Record<DomainStatus, KycStatus> = {
  'Not Submitted': KycStatus.KYC_STATUS_NOT_SUBMITTED,
  Pending: KycStatus.KYC_STATUS_PENDING,
  Approved: KycStatus.KYC_STATUS_APPROVED,
  Rejected: KycStatus.KYC_STATUS_REJECTED,
};

function callerOf(caller: Caller | undefined, role: string, ctx: CallContext): KycCaller {
  return {
    userId: caller?.userId ?? '',
    role,
    impersonatorId: caller?.impersonatorId || undefined,
    correlationId: caller?.correlationId || ctx.correlationId,
  };
}

export function kycGrpcService(deps: { ctx: KycContext; logger: Logger }): GrpcServiceRegistration {
  const { ctx } = deps;
  const handlers = unaryHandlers(
    {
      async listPending(req: QueuePageRequest, call: CallContext): Promise<ListPendingResponse> {
        const page = await listPending(ctx, callerOf(req.caller, req.callerRole, call), req);
        return { pendingUsers: page.items, nextCursor: page.nextCursor };
      },
      async countPending(req: QueueCountRequest, call: CallContext): Promise<QueueCountResponse> {
        return countPending(ctx, callerOf(req.caller, req.callerRole, call));
      },
      async approve(req: ApproveRequest, call: CallContext): Promise<MessageResponse> {
        return approveKyc(ctx, callerOf(req.caller, req.callerRole, call), req.userId);
      },
      async reject(req: RejectRequest, call: CallContext): Promise<MessageResponse> {
        return rejectKyc(ctx, callerOf(req.caller, req.callerRole, call), req.userId, req.reason);
      },
      async getStatus(req: GetStatusRequest): Promise<GetStatusResponse> {
        // the view as it is, its status both as the enum and as the text the SPA shows
        const s = await getStatus(ctx.store, req.userId);
        return { ...s, status: STATUS[s.status], kycStatus: s.status };
      },
    },
    { logger: deps.logger },
  );
  const implementation: KycServiceServer = handlers;
  return { definition: KycServiceService, implementation };
}
