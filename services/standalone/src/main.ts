import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '@meridian/platform/logger';
import { onShutdown, shutdownTimings } from '@meridian/platform/runtime';
import { ConfigError, metricsPortOf } from '@meridian/platform/config';
import { startMetricsServerIf } from '@meridian/platform/metrics';
import { startTracingFromEnv } from '@meridian/platform/tracing';
import { parseStandaloneConfig } from './config.js';
import { startStandalone } from './standalone.js';

/**
 * `tsx services/standalone/src/main.ts` (what `make start` runs): every service and the gateway in
 * one process. Prints the URL to open, the first admin's login (its password once, when generated) and,
 * outside production, the dev mailbox.
 */
async function main(): Promise<void> {
  const config = parseStandaloneConfig();
  const logger = createLogger('standalone');
  // OTLP traces when OTEL_* ask for them (platform tracing.ts); flushed last, after everything stopped
  const tracing = startTracingFromEnv('meridian');
  if (tracing) onShutdown(() => tracing.stop(), { logger });
  const app = await startStandalone({ logger });
  onShutdown(() => app.stop(), { logger });
  // SIGTERM: the gateway answers /readyz 503 and closes keep-alive connections after their response for
  // SHUTDOWN_DELAY_MS; then app.stop(): the gateway stops accepting and finishes what is in flight, then the
  // services stop (gRPC calls in flight finish, consumers finish their event), then the stores and the bus close
  onShutdown(
    () => {
      app.gateway.drain();
      return delay(shutdownTimings().delayMs);
    },
    { logger },
  );
  // One metrics server for the whole process (every service and the gateway share the registry), on the
  // standalone's host: METRICS_PORT (docs/CONVENTIONS.md), off by default outside production.
  const metrics = await startMetricsServerIf(metricsPortOf(config), {
    host: config.HOST,
    logger,
  });
  if (metrics) onShutdown(() => metrics.stop(), { logger });
  const production = config.NODE_ENV === 'production';
  const lines = [`Meridian is running at ${app.url}`];
  const kept = join(app.dataDir, 'secrets.json');
  lines.push(
    app.admin.password
      ? `  Admin login:  ${app.admin.email} / ${app.admin.password}   (generated now, shown once; kept in ${kept})`
      : `  Admin login:  ${app.admin.email} (password: ADMIN_PASSWORD, or as printed at the first start, kept in ${kept})`,
  );
  if (metrics) lines.push(`  Metrics:      http://${config.HOST}:${metrics.port}/metrics`);
  if (!production) lines.push(`  Dev mailbox:  ${app.url}/api/dev/mailbox?to=EMAIL (from this machine only)`);
  lines.push(`  Data:         ${app.dataDir}`, '  Stop with Ctrl+C.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`Meridian failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
