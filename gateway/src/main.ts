import { pathToFileURL } from 'node:url';
import { createLogger } from '@meridian/platform/logger';
import { loadConfigOrExit } from '@meridian/platform/config';
import { onShutdown } from '@meridian/platform/runtime';
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
export { createIdentityClient, createKycClient, createNotificationClient } from './grpcClients.js';
export { gatewayEventCodecs, pushesForKycEvent } from './live/kycPushes.js';
export { LIVE_EVENTS, LIVE_EVENTS as LIVE } from './live/pushContract.js';

/** `tsx gateway/src/main.ts`: the gateway alone, against identity and notification over gRPC. */
async function main(): Promise<void> {
  const config = gatewayConfigFromEnv(loadConfigOrExit(gatewayEnvSchema));
  const logger = createLogger('gateway');
  const gw = await startGateway({ config, logger });
  onShutdown(() => gw.stop(), { logger });
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
