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
import { listMailbox, type MailboxDeps } from '../app/mailbox.js';
import { sendAutomatedEmail, type SendAutomatedEmailDeps } from '../app/sendAutomatedEmail.js';

export interface NotificationGrpcDeps extends Omit<SendAutomatedEmailDeps, 'limitPerHour'> {
  production: boolean;
  /** SECRETS_KEY: keys the mailbox's blind index of addresses. */
  secretsKey: MailboxDeps['secretsKey'];
  automatedLimitPerHour: number;
  logger: Logger;
}

export function notificationGrpcService(deps: NotificationGrpcDeps): GrpcServiceRegistration {
  const handlers = unaryHandlers(
    {
      async sendAutomatedEmail(req: SendAutomatedEmailRequest, ctx: CallContext): Promise<MessageResponse> {
        const { caller, ...email } = req;
        return sendAutomatedEmail(
          {
            ...email,
            userId: caller?.userId ?? '',
            impersonatorId: caller?.impersonatorId || undefined,
            correlationId: caller?.correlationId || ctx.correlationId,
          },
          { ...deps, limitPerHour: deps.automatedLimitPerHour },
        );
      },
      async listMailbox(req: ListMailboxRequest): Promise<ListMailboxResponse> {
        return {
          messages: await listMailbox(deps.store, req.to, {
            production: deps.production,
            personalData: deps.personalData,
            secretsKey: deps.secretsKey,
          }),
        };
      },
    },
    { logger: deps.logger },
  );
  const implementation: NotificationServiceServer = handlers;
  return { definition: NotificationServiceService, implementation };
}
