/**
 * Composition root of the support service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/support/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { randomUUID } from 'node:crypto';
import { createPrivateFileStore, sealedFileStore } from '@meridian/platform/files/privateFiles';
import { runServiceProgram } from '@meridian/platform/runtime';
import { startService, type ServiceDeps, type ServiceHandle } from '@meridian/platform/service';
import { SERVICE, type AttachmentStore, type SupportContext } from './app/context.js';
import { ATTACHMENT_STORE } from './app/attachments.js';
import { IDENTITY_EVENT_TYPES, handleIdentityEvent } from './app/identityEvents.js';
import { published } from './app/integrationEvents.js';
import { SUPPORT_INDEXES } from './projections/supportViews.js';
import { supportGrpcService } from './adapters/supportService.grpc.js';
import { supportEnvSchema, type SupportConfig } from './config.js';

export { supportEnvSchema, parseSupportConfig, type SupportConfig } from './config.js';

export type SupportDeps = ServiceDeps<SupportConfig> & {
  newId?: () => string;
  /** Test hook: the attachments' store (unsealed); default by env (app/attachments.ts ATTACHMENT_STORE). */
  attachments?: AttachmentStore;
};
export type SupportHandle = ServiceHandle;

/**
 * ConversationStarted / SupportMessageSent / ConversationAssigned / Closed / Reopened / Joined and
 * SupportReplyEmailRequested out on meridian.support.events; identity's UserDeleted in (erasure).
 */
export function start(deps: SupportDeps): Promise<SupportHandle> {
  const { config, logger } = deps;
  return startService(
    { ...deps, service: SERVICE, published, indexes: SUPPORT_INDEXES },
    async ({ store, givenOrOpened, consume, serveGrpc, clock, personalData }) => {
      const stored = await givenOrOpened(deps.attachments, () =>
        createPrivateFileStore(config, ATTACHMENT_STORE),
      );
      const ctx: SupportContext = {
        store,
        clock,
        newId: deps.newId ?? randomUUID,
        logger,
        personalData,
        // attachments are kept sealed with the conversation owner's key (unreadable once they are deleted)
        attachments: sealedFileStore(stored, personalData),
        secretKey: config.SUPPORT_SECRET_KEY,
      };
      await consume('identity', (event, tx) => handleIdentityEvent(ctx, event, tx), IDENTITY_EVENT_TYPES);
      const grpcAddress = await serveGrpc(config.SUPPORT_GRPC_ADDR, [supportGrpcService(ctx, { logger })]);
      return { grpcAddress };
    },
  );
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: supportEnvSchema, start });
