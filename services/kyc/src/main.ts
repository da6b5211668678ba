/**
 * Composition root of the kyc service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/kyc/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { randomUUID } from 'node:crypto';
import { createPrivateFileStore } from '@meridian/platform/files/privateFiles';
import { runServiceProgram } from '@meridian/platform/runtime';
import { startService, type ServiceDeps, type ServiceHandle } from '@meridian/platform/service';
import { KYC_INDEXES } from './app/collections.js';
import { IDENTITY_EVENT_TYPES, handleIdentityEvent } from './app/handleIdentityEvent.js';
import { published } from './app/integrationEvents.js';

import type { KycContext } from './app/kycCases.js';
import { DOCUMENT_STORE, type DocumentMeta, type DocumentStore } from './app/ports.js';
import { sealedDocumentStore } from './app/sealedDocuments.js';
import { kycGrpcService } from './adapters/kycService.grpc.js';
import { startKycHttpServer } from './adapters/kycHttp.node.js';
import { kycEnvSchema, type KycConfig } from './config.js';

export { kycEnvSchema, parseKycConfig, type KycConfig } from './config.js';
export type { DocumentStore } from './app/ports.js';

export const SERVICE = 'kyc';

export interface KycDeps extends ServiceDeps<KycConfig> {
  /** Where documents live; default: GridFS when MONGO_URL is set, else files under DATA_DIR/kyc. */
  documents?: DocumentStore;
  /** Test hook for the 10 MB limit. */
  maxFileBytes?: number;
}

export interface KycHandle extends ServiceHandle {
  /** Base URL of the document endpoint (POST /upload, GET /documents/:userId/:side) the gateway proxies to. */
  httpUrl: string;
  documents: DocumentStore;
}

/** The document store chosen by env: GridFS when MONGO_URL is set, else files under DATA_DIR/kyc. */
export const createDocumentStore = (
  config: Pick<KycConfig, 'MONGO_URL' | 'DATA_DIR'>,
): Promise<DocumentStore> => createPrivateFileStore<DocumentMeta>(config, DOCUMENT_STORE);

/** KycSubmitted / KycApproved / KycRejected out on meridian.kyc.events (KycCaseErased stays private). */
export function start(deps: KycDeps): Promise<KycHandle> {
  const { config, logger } = deps;
  return startService(
    { ...deps, service: SERVICE, published, indexes: KYC_INDEXES },
    async ({ store, onStop, givenOrOpened, consume, serveGrpc, clock, personalData }) => {
      const stored = await givenOrOpened(deps.documents, () => createDocumentStore(config));
      // documents are kept sealed with their owner's key (unreadable everywhere once the user is deleted)
      const documents = sealedDocumentStore(stored, personalData);
      const ctx: KycContext = { store, clock, newId: randomUUID, personalData };
      // identity events: names for the review list, and erasure when a user is deleted
      await consume(
        'identity',
        (event, tx) => handleIdentityEvent(event, tx, { documents, now: clock, personalData }),
        IDENTITY_EVENT_TYPES,
      );
      const grpcAddress = await serveGrpc(config.KYC_GRPC_ADDR, [kycGrpcService({ ctx, logger })]);
      // the document endpoint behind the gateway
      const http = await startKycHttpServer({
        address: config.KYC_HTTP_ADDR,
        ctx,
        documents,
        internalToken: config.KYC_INTERNAL_TOKEN,
        logger,
        maxFileBytes: deps.maxFileBytes,
      });
      onStop(() => http.stop());
      return { grpcAddress, httpUrl: http.url, documents };
    },
  );
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: kycEnvSchema, start });
