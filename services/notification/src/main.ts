/**
 * Composition root of the notification service (docs/CONVENTIONS.md "Service composition contract"):
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/notification/src/main.ts`) it builds its adapters from env (runServiceProgram).
 */
import { randomUUID } from 'node:crypto';
import { openSecret } from '@meridian/platform/crypto';
import { runServiceProgram } from '@meridian/platform/runtime';
import { startService, type ServiceDeps, type ServiceHandle } from '@meridian/platform/service';
import { NOTIFICATION_INDEXES } from './app/collections.js';
import { startEmailSender } from './app/emailSender.js';
import { IDENTITY_EVENT_TYPES, handleIdentityEvent } from './app/handleIdentityEvent.js';
import { KYC_EVENT_TYPES, handleKycEvent } from './app/handleKycEvent.js';
import { SUPPORT_EVENT_TYPES, handleSupportEvent } from './app/handleSupportEvent.js';
import { published } from './app/integrationEvents.js';

import { MONEY_EVENT_TYPES, handleMoneyEvent } from './app/moneyEmails.js';
import { recordReceivedMail } from './app/mailbox.js';
import type { Mailer } from './app/ports.js';
import { createSmtpMailer } from './adapters/mailer.smtp.js';
import { notificationGrpcService } from './adapters/notificationService.grpc.js';
import { startSmtpCatcher, type SmtpCatcher } from './adapters/smtpCatcher.js';
import { notificationEnvSchema, type NotificationConfig } from './config.js';

export { notificationEnvSchema, parseNotificationConfig, type NotificationConfig } from './config.js';

export const SERVICE = 'notification';

export type NotificationDeps = ServiceDeps<NotificationConfig>;

export interface NotificationHandle extends ServiceHandle {
  /** smtp://127.0.0.1:port of the embedded catcher, or null when SMTP_URL is set. */
  smtpCatcherUrl: string | null;
}

/** EmailSent / EmailFailed out on meridian.notification.events (EmailQueued stays private). */
export function start(deps: NotificationDeps): Promise<NotificationHandle> {
  const { config, logger } = deps;
  const production = config.NODE_ENV === 'production';
  return startService(
    { ...deps, service: SERVICE, published, indexes: NOTIFICATION_INDEXES },
    // personal data (addresses, names) stays sealed with each owner's key in the outbox and the mailbox
    async ({ store, onStop, consume, serveGrpc, clock, personalData }) => {
      const mailboxDeps = { personalData, secretsKey: config.SECRETS_KEY };
      // 1. transport: SMTP_URL, or the embedded catcher reached through the same SMTP path
      let catcher: SmtpCatcher | null = null;
      if (!config.SMTP_URL) {
        if (production) throw new Error('SMTP_URL is required in production');
        catcher = await startSmtpCatcher({
          onMessage: (mail) => recordReceivedMail(store, mail, clock(), mailboxDeps),
        });
        onStop(() => catcher!.close());
        logger.info({ url: catcher.url }, 'no SMTP_URL: embedded SMTP catcher keeps a local mailbox');
      }
      const mailer: Mailer = createSmtpMailer({
        url: config.SMTP_URL ?? catcher!.url,
        production,
        plainLoopback: catcher !== null,
      });
      onStop(() => mailer.close());

      // 2. the sender loop: delivers pending emails (including those left by a crash)
      const sender = startEmailSender({
        store,
        mailer,
        clock,
        policy: {
          maxAttempts: config.EMAIL_MAX_ATTEMPTS,
          baseDelayMs: config.EMAIL_RETRY_BASE_MS,
          maxDelayMs: config.EMAIL_RETRY_MAX_MS,
        },
        from: config.MAIL_FROM,
        appUrl: config.APP_URL,
        openSecret: (sealed) => openSecret(sealed, config.SECRETS_KEY),
        personalData,
        log: logger,
      });
      onStop(() => sender.stop());

      // 3. other services' events -> pending emails (and the directory), exactly once per event id:
      // identity's; kyc's (submitted to every admin, approved / rejected to the user); the money
      // services' (deposit / investment / withdrawal / referral emails)
      // (each declares the types it acts on: the others only advance the offset, without a transaction)
      await consume(
        'identity',
        (event, tx) => handleIdentityEvent(event, tx, clock(), personalData),
        IDENTITY_EVENT_TYPES,
      );
      await consume('kyc', (event, tx) => handleKycEvent(event, tx, clock(), personalData), KYC_EVENT_TYPES);
      // support's: a reply to someone not connected (one per burst), the link to a visitor's conversation
      await consume(
        'support',
        (event, tx) => handleSupportEvent(event, tx, clock(), personalData),
        SUPPORT_EVENT_TYPES,
      );
      for (const source of ['ledger', 'investment', 'withdrawal'])
        await consume(
          source,
          (event, tx) => handleMoneyEvent(event, tx, clock(), personalData),
          MONEY_EVENT_TYPES,
        );

      // 4. gRPC
      const grpcAddress = await serveGrpc(config.NOTIFICATION_GRPC_ADDR, [
        notificationGrpcService({
          store,
          clock,
          newId: randomUUID,
          appUrl: config.APP_URL,
          production,
          automatedLimitPerHour: config.AUTOMATED_EMAIL_LIMIT_PER_HOUR,
          personalData,
          secretsKey: config.SECRETS_KEY,
          logger,
        }),
      ]);
      return { grpcAddress, smtpCatcherUrl: catcher?.url ?? null };
    },
  );
}

runServiceProgram(import.meta.url, { service: SERVICE, schema: notificationEnvSchema, start });
