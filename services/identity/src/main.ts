/**
 * Composition root of the identity service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/identity/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { join } from 'node:path';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { parseEnv, runtimeEnvSchema } from '@meridian/platform/config';
import { runServiceProgram } from '@meridian/platform/runtime';
import { internalServiceToken, personalDataOf } from '@meridian/platform/personalData';
import { startService, type ServiceDeps, type ServiceHandle } from '@meridian/platform/service';
import { IdentityServiceService } from '@meridian/proto/meridian/identity/v1/identity';
import { AuditServiceService } from '@meridian/proto/meridian/identity/v1/audit';
import { identityEnvSchema, type IdentityConfig } from './config.js';
import { DEFAULT_RATE_LIMITS, type IdentityContext, type RateLimits } from './app/context.js';
import { ensureFirstAdmin } from './app/firstAdmin.js';
import { backfillSearchTokens } from './app/userSearch.js';
import { published } from './app/integrationEvents.js';

import type { PasswordHasher } from './app/ports.js';
import { createNodeCrypto } from './adapters/crypto.node.js';
import { createArgon2PasswordHasher } from './adapters/passwordHasher.argon2.js';
import { createJwtTokenSigner } from './adapters/tokenSigner.jwt.js';
import { createJwksOidcVerifier } from './adapters/oidcVerifier.jwks.js';
import { createIdentityGrpcService } from './adapters/identityService.grpc.js';
import { subscribeExternalFacts } from './app/externalFacts.js';
import { subscribeAudit } from './app/audit.js';
import { createAuditGrpcService } from './adapters/auditService.grpc.js';
import { announcingUserChanges } from './app/userChanges.js';
import { USER_INDEXES } from './projections/userView.js';
import { createSessionRevocationPublisher } from './adapters/sessionRevocations.pubsub.js';
import { createSqlitePersonalDataKeys } from './adapters/personalDataKeys.sqlite.js';
import { createStorePersonalDataKeys } from './adapters/personalDataKeys.store.js';

export type { IdentityConfig } from './config.js';
export { parseIdentityConfig, identityEnvSchema } from './config.js';

export const SERVICE = 'identity';
/** Identity's key vault next to its store: never in a backup (scripts/backup.ts). */
export const PERSONAL_DATA_KEYS_FILE = 'identity-keys.sqlite';
export const personalDataKeysPath = (dataDir: string) => join(dataDir, PERSONAL_DATA_KEYS_FILE);
export { createSqlitePersonalDataKeys } from './adapters/personalDataKeys.sqlite.js';
export const IDENTITY_TOPIC = topicOf(SERVICE);

export interface IdentityDeps extends ServiceDeps<IdentityConfig> {
  /** Overrides for tests (budgets, cheaper hashing). */
  rateLimits?: Partial<RateLimits>;
  passwordHasher?: PasswordHasher;
}

/** Every appended user event out on meridian.identity.events. */
export function start(deps: IdentityDeps): Promise<ServiceHandle> {
  const { config, bus, logger } = deps;
  return startService(
    { ...deps, service: SERVICE, published },
    async ({ store: ownStore, onStop, givenOrOpened, serveGrpc }) => {
      const kv = await givenOrOpened(deps.kv, createMemoryKeyValueStore);
      // revocations out to every gateway (Redis pub/sub when REDIS_URL is set; always to a gateway in this process)
      const revocations = createSessionRevocationPublisher({ redisUrl: config.REDIS_URL, logger });
      onStop(() => revocations.close());
      // a changed user view also drops the gateways' cached sessions of the user (app/userChanges.ts)
      const store = announcingUserChanges(ownStore, (uid) => revocations.publish({ uid }));
      for (const ix of USER_INDEXES) await ownStore.ensureIndex?.(ix.collection, ix.fields);
      const ctx: IdentityContext = {
        store,
        kv,
        clock: deps.clock ?? (() => new Date()),
        passwords: deps.passwordHasher ?? createArgon2PasswordHasher(),
        tokens: createJwtTokenSigner(config.JWT_SECRET),
        crypto: createNodeCrypto({ secretsKey: config.SECRETS_KEY, hashKey: config.JWT_SECRET }),
        oidc: config.GOOGLE_CLIENT_ID
          ? createJwksOidcVerifier({
              issuer: config.OIDC_ISSUER,
              jwksUrl: config.OIDC_JWKS_URL,
              audience: config.GOOGLE_CLIENT_ID,
            })
          : null,
        logger,
        limits: { ...DEFAULT_RATE_LIMITS, ...config.IDENTITY_RATE_LIMITS_JSON, ...deps.rateLimits },
        revocations,
        personalData: personalDataOf(deps),
      };

      // the users of a store from before search tokens get theirs (once; app/userSearch.ts)
      await backfillSearchTokens({ ...ctx, store: ownStore, logger });
      if (await ensureFirstAdmin(ctx, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD })) {
        // no address in the log: the admin is a person, and logs outlive their deletion
        logger.info('first admin created from ADMIN_EMAIL');
      }
      if (config.usedDevDefaults.length > 0 && config.NODE_ENV === 'development') {
        logger.warn(
          {
            defaults: config.usedDevDefaults,
            adminEmail: config.ADMIN_EMAIL,
            adminPassword: config.usedDevDefaults.includes('ADMIN_PASSWORD')
              ? config.ADMIN_PASSWORD
              : undefined,
          },
          'development defaults in use (never in production)',
        );
      }

      // kycStatus and the document links on the user view, from the kyc service's events
      for (const subscription of await subscribeExternalFacts({ bus, store })) {
        onStop(() => subscription.stop());
      }
      // the audit trail and the users' security events, from every service's topic (app/audit.ts)
      for (const subscription of await subscribeAudit({ bus, store })) {
        onStop(() => subscription.stop());
      }
      const serviceToken = internalServiceToken({
        NODE_ENV: config.NODE_ENV,
        INTERNAL_SERVICE_TOKEN: config.INTERNAL_SERVICE_TOKEN,
      });
      if (!serviceToken)
        logger.warn(
          'INTERNAL_SERVICE_TOKEN is not set: no service can fetch personal-data keys (GetPersonalDataKeys)',
        );
      const grpcAddress = await serveGrpc(config.IDENTITY_GRPC_ADDR, [
        {
          definition: IdentityServiceService,
          implementation: createIdentityGrpcService(ctx, logger, serviceToken),
        },
        { definition: AuditServiceService, implementation: createAuditGrpcService(ctx, logger) },
      ]);
      return { grpcAddress };
    },
  );
}

runServiceProgram(import.meta.url, {
  service: SERVICE,
  schema: identityEnvSchema,
  start,
  // identity owns the personal-data keys: a vault file of its own on SQLite (out of backups), a collection on MongoDB
  async personalDataKeys(runtime, env) {
    return runtime.adapters.store === 'sqlite'
      ? createSqlitePersonalDataKeys(personalDataKeysPath(parseEnv(runtimeEnvSchema, env).DATA_DIR))
      : createStorePersonalDataKeys(runtime.store);
  },
});
