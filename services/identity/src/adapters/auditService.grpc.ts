/** The AuditService gRPC surface (served by identity): proto request -> use case -> proto response. */
import { unaryHandlers, type CallContext } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import * as pb from '@meridian/proto/meridian/identity/v1/audit';
import type { AuditServiceServer } from '@meridian/proto/meridian/identity/v1/audit';
import { listAuditEntries, listSecurityEvents, recordClaimTakeover } from '../app/audit.js';
import type { IdentityContext } from '../app/context.js';
import { callerOf } from './identityService.grpc.js';

export function createAuditGrpcService(ctx: IdentityContext, logger: Logger): AuditServiceServer {
  return unaryHandlers(
    {
      listAuditEntries: async (
        req: pb.ListAuditEntriesRequest,
        call: CallContext,
      ): Promise<pb.ListAuditEntriesResponse> => {
        const page = await listAuditEntries(ctx, callerOf(req.caller, call), {
          adminId: req.adminId,
          userId: req.userId,
          action: req.action,
          from: req.from,
          to: req.to,
          limit: req.limit,
          cursor: req.cursor,
        });
        return {
          // the message's fields only (the paging key travels as the cursor)
          entries: page.entries.map(({ sortKey: _sortKey, ...entry }) => pb.AuditEntry.fromPartial(entry)),
          nextCursor: page.nextCursor,
        };
      },
      listSecurityEvents: async (
        req: pb.ListSecurityEventsRequest,
        call: CallContext,
      ): Promise<pb.ListSecurityEventsResponse> => ({
        events: (await listSecurityEvents(ctx, callerOf(req.caller, call), req.limit)).map((e) => ({
          id: e.id,
          at: e.at,
          kind: e.kind,
          method: e.method,
          address: e.address,
        })),
      }),
      recordClaimTakeover: async (req: pb.RecordClaimTakeoverRequest, call: CallContext) => ({
        message: await recordClaimTakeover(ctx, callerOf(req.caller, call), {
          kind: req.kind,
          itemId: req.itemId,
          fromAdminId: req.fromAdminId,
        }),
      }),
    },
    { logger },
  );
}
