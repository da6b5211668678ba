/**
 * Composition root of the identity service (docs/CONVENTIONS.md "Service composition contract").
 * `start(deps)` is what the standalone target and the tests call; run directly
 * (`tsx services/identity/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { fileURLToPath } from 'node:url';
import { startOutboxRelay } from '@meridian/platform/app/outboxRelay';
import { startGrpcServer } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createServiceRuntime, onShutdown } from '@meridian/platform/runtime';
import { loadConfigOrExit } from '@meridian/platform/config';
import { IdentityServiceService } from '@meridian/proto/meridian/identity/v1/identity';
import { identityEnvSchema, type IdentityConfig } from './config.js';
import { DEFAULT_RATE_LIMITS, type IdentityContext, type RateLimits } from './app/context.js';
import { ensureFirstAdmin } from './app/firstAdmin.js';
import type { PasswordHasher } from './app/ports.js';
import { createNodeCrypto } from './adapters/crypto.node.js';
import { createArgon2PasswordHasher } from './adapters/passwordHasher.argon2.js';
import { createJwtTokenSigner } from './adapters/tokenSigner.jwt.js';
import { createJwksOidcVerifier } from './adapters/oidcVerifier.jwks.js';
import { createIdentityGrpcService } from './adapters/identityService.grpc.js';
import { identityEventCodecs } from './adapters/eventCodecs.js';
import { subscribeExternalFacts } from './app/externalFacts.js';
import { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import { BalancesChanged } from '@meridian/proto/meridian/ledger/v1/events';

export type { IdentityConfig } from './config.js';
export { parseIdentityConfig, identityEnvSchema } from './config.js';
export { identityEventCodecs } from './adapters/eventCodecs.js';

export const IDENTITY_TOPIC = topicOf('identity');

/** Codecs of the other services' events identity consumes (Kafka bus): kycStatus and balances on the user view. */
export const identityConsumedEventCodecs = { KycSubmitted, KycApproved, KycRejected, BalancesChanged };

export interface IdentityDeps {
  config: IdentityConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
  /** Overrides for tests (budgets, cheaper hashing). */
  rateLimits?: Partial<RateLimits>;
  passwordHasher?: PasswordHasher;
}

export async function start(deps: IdentityDeps): Promise<{ grpcAddress: string; stop(): Promise<void> }> {
  const { config, store, bus, logger } = deps;
  const ownKv = !deps.kv;
  const kv = deps.kv ?? createMemoryKeyValueStore();
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
  };

  if (await ensureFirstAdmin(ctx, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD })) {
    logger.info({ email: config.ADMIN_EMAIL }, 'first admin created');
  }
  if (config.usedDevDefaults.length > 0 && config.NODE_ENV === 'development') {
    logger.warn(
      {
        defaults: config.usedDevDefaults,
        adminEmail: config.ADMIN_EMAIL,
        adminPassword: config.usedDevDefaults.includes('ADMIN_PASSWORD') ? config.ADMIN_PASSWORD : undefined,
      },
      'development defaults in use (never in production)',
    );
  }

  const relay = startOutboxRelay({
    store,
    bus,
    topic: IDENTITY_TOPIC,
    onError: (err, attempt) =>
      logger.warn({ err, attempt }, 'identity outbox relay: publish failed, retrying'),
  });
  // kycStatus and the document links on the user view, from the kyc service's events
  const facts = await subscribeExternalFacts({ bus, store });
  const server = await startGrpcServer({
    address: config.IDENTITY_GRPC_ADDR,
    services: [
      { definition: IdentityServiceService, implementation: createIdentityGrpcService(ctx, logger) },
    ],
    logger,
  });

  let stopping: Promise<void> | undefined;
  return {
    grpcAddress: server.address,
    stop() {
      stopping ??= (async () => {
        await server.stop();
        for (const sub of facts) await sub.stop();
        await relay.stop();
        if (ownKv) await kv.close();
      })();
      return stopping;
    },
  };
}

async function main() {
  const config = loadConfigOrExit(identityEnvSchema);
  const runtime = await createServiceRuntime('identity', process.env, {
    codecs: { ...identityEventCodecs, ...identityConsumedEventCodecs },
  });
  const service = await start({
    config,
    store: runtime.store,
    bus: runtime.bus,
    kv: runtime.kv,
    logger: runtime.logger,
  });
  runtime.logger.info({ grpcAddress: service.grpcAddress }, 'identity service started');
  onShutdown(() => runtime.close(), { logger: runtime.logger });
  onShutdown(() => service.stop(), { logger: runtime.logger });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    process.stderr.write(`identity failed to start: ${String(err?.stack ?? err)}\n`);
    process.exit(1);
  });
}
