/** gRPC surface of the notification service: proto request -> use case -> proto response. Thin. */
import type { MessageResponse } from '@meridian/proto/meridian/common/v1/common';
import {
  NotificationServiceService,
  type ListMailboxRequest,
  type ListMailboxResponse,
  type NotificationServiceServer,
  type SendAutomatedEmailRequest,
} from '@meridian/proto/meridian/notification/v1/notification';
import { unaryHandlers, type GrpcServiceRegistration, type CallContext } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { listMailbox } from '../app/mailbox.js';
import { sendAutomatedEmail } from '../app/sendAutomatedEmail.js';

export interface NotificationGrpcDeps {
  store: ServiceStore;
  clock: () => Date;
  newId: () => string;
  appUrl: string;
  production: boolean;
  automatedLimitPerHour: number;
  logger: Logger;
}

export function notificationGrpcService(deps: NotificationGrpcDeps): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    {
      async sendAutomatedEmail(req: SendAutomatedEmailRequest, ctx: CallContext): Promise<MessageResponse> {
        return sendAutomatedEmail(
          {
            userId: req.caller?.userId ?? '',
            impersonatorId: req.caller?.impersonatorId || undefined,
            correlationId: req.caller?.correlationId || ctx.correlationId,
            callerEmail: req.callerEmail,
            callerName: req.callerName,
            subject: req.subject,
            sendTo: req.sendTo,
            replyTo: req.replyTo,
            template: req.template,
            url: req.url,
          },
          {
            store: deps.store,
            clock: deps.clock,
            newId: deps.newId,
            appUrl: deps.appUrl,
            limitPerHour: deps.automatedLimitPerHour,
          },
        );
      },
      async listMailbox(req: ListMailboxRequest): Promise<ListMailboxResponse> {
        return { messages: await listMailbox(deps.store, req.to, { production: deps.production }) };
      },
    },
    { logger: deps.logger },
  );
  const implementation: NotificationServiceServer = handlers;
  return { definition: NotificationServiceService, implementation };
}
