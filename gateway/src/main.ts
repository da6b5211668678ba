import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createLogger } from '@meridian/platform/logger';
import { loadConfigOrExit, metricsPortOf } from '@meridian/platform/config';
import { startMetricsServerIf } from '@meridian/platform/metrics';
import { startTracingFromEnv } from '@meridian/platform/tracing';
import { onShutdown, remotePersonalDataKeys, shutdownTimings } from '@meridian/platform/runtime';
import { PersonalData } from '@meridian/platform/personalData';
import { registerMeshFromEnv } from '@meridian/platform/grpc/mesh';
import { gatewayConfigFromEnv, gatewayEnvSchema } from './config.js';
import { startGateway } from './server.js';

export { createGatewayApp, type GatewayDeps } from './app.js';
export { startGateway, type RunningGateway, type StartGatewayOptions } from './server.js';
export {
  gatewayConfigFromEnv,
  gatewayEnvSchema,
  parseGatewayConfig,
  DEFAULT_RATE_LIMITS,
  type GatewayConfig,
} from './config.js';
export {
  createIdentityClient,
  createKycClient,
  createNotificationClient,
  createSupportClient,
} from './grpcClients.js';
export { closeMoneyClients, createMoneyClients } from './moneyClients.js';
export { gatewayEventCodecs, pushesForKycEvent } from './live/kycPushes.js';
export { LIVE_EVENTS, LIVE_EVENTS as LIVE } from './live/pushContract.js';

/** `tsx gateway/src/main.ts`: the gateway alone, against identity and notification over gRPC. */
async function main(): Promise<void> {
  const env = loadConfigOrExit(gatewayEnvSchema);
  const config = gatewayConfigFromEnv(env);
  const logger = createLogger('gateway');
  // its certificate for mutual TLS with the services (GRPC_TLS_DIR; required in production)
  registerMeshFromEnv('gateway', process.env);
  const tracing = startTracingFromEnv('gateway');
  if (tracing) onShutdown(() => tracing.stop(), { logger });
  // personal values in live pushes are opened with keys from identity (IDENTITY_GRPC_URL, INTERNAL_SERVICE_TOKEN)
  const keys = remotePersonalDataKeys({ ...process.env, IDENTITY_GRPC_URL: config.identityGrpcUrl }, logger);
  onShutdown(() => keys.close(), { logger });
  const gw = await startGateway({ config, logger, personalData: new PersonalData(keys) });
  const metricsServer = await startMetricsServerIf(metricsPortOf(env), { logger });
  if (metricsServer) onShutdown(() => metricsServer.stop(), { logger });
  // SIGTERM: unready and closing keep-alive connections for SHUTDOWN_DELAY_MS, then stop accepting, finish
  // the requests in flight, close (all within SHUTDOWN_GRACE_MS)
  onShutdown(() => gw.stop(), { logger });
  onShutdown(
    () => {
      gw.drain();
      return delay(shutdownTimings().delayMs);
    },
    { logger },
  );
  logger.info(
    {
      url: gw.url,
      identity: config.identityGrpcUrl,
      notification: config.notificationGrpcUrl,
      kyc: config.kycGrpcUrl,
      kycHttp: config.kycHttpUrl,
    },
    'gateway started',
  );
}

const isEntry = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isEntry) {
  main().catch((err) => {
    process.stderr.write(`gateway failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
