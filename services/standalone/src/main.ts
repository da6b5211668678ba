import { createLogger } from '@meridian/platform/logger';
import { onShutdown } from '@meridian/platform/runtime';
import { ConfigError } from '@meridian/platform/config';
import { startStandalone } from './standalone.js';

/**
 * `tsx services/standalone/src/main.ts` (what `make start` runs): every service and the gateway in
 * one process. Prints the URL to open and, outside production, the admin login and the dev mailbox.
 */
async function main(): Promise<void> {
  const logger = createLogger('standalone');
  const app = await startStandalone({ logger });
  onShutdown(() => app.stop(), { logger });
  const production = process.env.NODE_ENV === 'production';
  const lines = [`Meridian is running at ${app.url}`];
  if (!production) {
    lines.push(
      `  Admin login:  ${app.admin.email}${app.admin.password ? ` / ${app.admin.password}` : ' (password from ADMIN_PASSWORD)'}`,
      `  Dev mailbox:  ${app.url}/api/dev/mailbox?to=EMAIL`,
    );
  }
  lines.push(`  Data:         ${app.dataDir}`, '  Stop with Ctrl+C.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`Meridian failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
