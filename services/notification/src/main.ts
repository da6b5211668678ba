/**
 * Composition root of the notification service: config -> adapters -> start().
 * `start` is what the standalone target and the tests call; run as a program
 * (`tsx services/notification/src/main.ts`) it builds its adapters from env with createServiceRuntime.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import { startOutboxRelay } from '@meridian/platform/app/outboxRelay';
import { loadConfigOrExit } from '@meridian/platform/config';
import { openSecret } from '@meridian/platform/crypto';
import { startGrpcServer } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createServiceRuntime, onShutdown } from '@meridian/platform/runtime';
import type { EventCodecs } from '@meridian/platform/adapters/eventBus.kafka';
import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import { EmailFailed, EmailSent } from '@meridian/proto/meridian/notification/v1/events';
import { CONSUMER_GROUP } from './app/collections.js';
import { startEmailSender } from './app/emailSender.js';
import { handleIdentityEvent } from './app/handleIdentityEvent.js';
import { handleKycEvent } from './app/handleKycEvent.js';
import { handleMoneyEvent } from './app/moneyEmails.js';
import { moneyEmailEventCodecs } from './adapters/moneyEventCodecs.js';
import { recordReceivedMail } from './app/mailbox.js';
import type { Mailer } from './app/ports.js';
import { createSmtpMailer } from './adapters/mailer.smtp.js';
import { notificationGrpcService } from './adapters/notificationService.grpc.js';
import { startSmtpCatcher, type SmtpCatcher } from './adapters/smtpCatcher.js';
import { notificationEnvSchema, type NotificationConfig } from './config.js';

export { notificationEnvSchema, parseNotificationConfig, type NotificationConfig } from './config.js';

export const SERVICE = 'notification';

/** Protobuf codecs of the events this service consumes and produces (used by the Kafka bus). */
export const notificationEventCodecs: EventCodecs = {
  EmailVerificationRequested: identityEvents.EmailVerificationRequested,
  LoginCodeRequested: identityEvents.LoginCodeRequested,
  PasswordResetRequested: identityEvents.PasswordResetRequested,
  PasswordChanged: identityEvents.PasswordChanged,
  RoleChanged: identityEvents.RoleChanged,
  // the directory of users and admins (app/directory.ts)
  UserRegistered: identityEvents.UserRegistered,
  ProfileUpdated: identityEvents.ProfileUpdated,
  UserDeleted: identityEvents.UserDeleted,
  KycSubmitted,
  KycApproved,
  KycRejected,
  EmailSent,
  EmailFailed,
  // money emails (app/moneyEmails.ts)
  ...moneyEmailEventCodecs,
};

export interface NotificationDeps {
  config: NotificationConfig;
  store: ServiceStore;
  bus: EventBus;
  kv?: KeyValueStore;
  logger: Logger;
  clock?: () => Date;
}

export interface NotificationHandle {
  grpcAddress: string;
  /** smtp://127.0.0.1:port of the embedded catcher, or null when SMTP_URL is set. */
  smtpCatcherUrl: string | null;
  stop(): Promise<void>;
}

export async function start(deps: NotificationDeps): Promise<NotificationHandle> {
  const { config, store, bus, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const production = config.NODE_ENV === 'production';
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        logger.error({ err }, 'error while stopping notification');
      }
    }
    stops.length = 0;
  };

  try {
    // 1. transport: SMTP_URL, or the embedded catcher reached through the same SMTP path
    let catcher: SmtpCatcher | null = null;
    if (!config.SMTP_URL) {
      if (production) throw new Error('SMTP_URL is required in production');
      catcher = await startSmtpCatcher({ onMessage: (mail) => recordReceivedMail(store, mail, clock()) });
      stops.push(() => catcher!.close());
      logger.info({ url: catcher.url }, 'no SMTP_URL: embedded SMTP catcher keeps a local mailbox');
    }
    const mailer: Mailer = createSmtpMailer({
      url: config.SMTP_URL ?? catcher!.url,
      production,
      plainLoopback: catcher !== null,
    });
    stops.push(() => mailer.close());

    // 2. EmailSent / EmailFailed out on meridian.notification.events (EmailQueued stays private)
    const relay = startOutboxRelay({
      store,
      bus,
      topic: topicOf(SERVICE),
      map: (e) => (e.type === 'EmailSent' || e.type === 'EmailFailed' ? e : null),
      onError: (err, attempt) => logger.warn({ err, attempt }, 'notification outbox relay failed; retrying'),
    });
    stops.push(() => relay.stop());

    // 3. the sender loop: delivers pending emails (including those left by a crash)
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
      log: logger,
    });
    stops.push(() => sender.stop());

    // 4. identity events -> pending emails (and the directory), exactly once per event id
    const subscription = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('identity'),
      group: CONSUMER_GROUP,
      handle: (event, tx) => handleIdentityEvent(event, tx, clock()),
    });
    stops.push(() => subscription.stop());

    // 5. kyc events -> KYC submitted (to every admin) / approved / rejected (to the user), once per event
    const kycSubscription = await subscribeIdempotent({
      bus,
      store,
      topic: topicOf('kyc'),
      group: CONSUMER_GROUP,
      handle: (event, tx) => handleKycEvent(event, tx, clock()),
    });
    stops.push(() => kycSubscription.stop());

    // 5b. money events (ledger, investment, withdrawal) -> deposit / investment / withdrawal / referral emails, once per event
    for (const source of ['ledger', 'investment', 'withdrawal']) {
      const moneySubscription = await subscribeIdempotent({
        bus,
        store,
        topic: topicOf(source),
        group: CONSUMER_GROUP,
        handle: (event, tx) => handleMoneyEvent(event, tx, clock()),
      });
      stops.push(() => moneySubscription.stop());
    }

    // 6. gRPC
    const grpc = await startGrpcServer({
      address: config.NOTIFICATION_GRPC_ADDR,
      logger,
      services: [
        notificationGrpcService({
          store,
          clock,
          newId: randomUUID,
          appUrl: config.APP_URL,
          production,
          automatedLimitPerHour: config.AUTOMATED_EMAIL_LIMIT_PER_HOUR,
          logger,
        }),
      ],
    });
    stops.push(() => grpc.stop());

    return { grpcAddress: grpc.address, smtpCatcherUrl: catcher?.url ?? null, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(notificationEnvSchema);
  const runtime = await createServiceRuntime(SERVICE, process.env, { codecs: notificationEventCodecs });
  if (config.usedDevDefaults.length > 0) {
    runtime.logger.warn(
      { variables: config.usedDevDefaults },
      'using development defaults (never in production)',
    );
  }
  const handle = await start({
    config,
    store: runtime.store,
    bus: runtime.bus,
    kv: runtime.kv,
    logger: runtime.logger,
  });
  onShutdown(() => runtime.close(), { logger: runtime.logger });
  onShutdown(() => handle.stop(), { logger: runtime.logger });
  runtime.logger.info(
    { grpc: handle.grpcAddress, smtpCatcher: handle.smtpCatcherUrl },
    'notification service started',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`notification failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
