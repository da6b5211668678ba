/**
 * Notification's environment, parsed and typed once (docs/CONVENTIONS.md names). Development
 * defaults exist only outside production: with NODE_ENV=production SECRETS_KEY and SMTP_URL must be
 * given (the embedded SMTP catcher is a development tool, never a production mail path).
 */
import { z } from 'zod';
import { commonEnvSchema, env, envParser, withDevDefaults } from '@meridian/platform/config';

export const DEV_DEFAULTS = {
  /** Same development key as identity's, so the standalone target opens what identity seals. */
  SECRETS_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
} as const;

const positiveInt = (defaultValue: number) =>
  z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').default(defaultValue);

const variables = commonEnvSchema.extend({
  NOTIFICATION_GRPC_ADDR: env.address('0.0.0.0:50052').describe("notification's gRPC listen address"),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, 'must be an smtp:// or smtps:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined))
    .describe('SMTP server (Mailpit in compose); unset: the embedded SMTP catcher (never in production)'),
  MAIL_FROM: z
    .string()
    .min(3, 'must be a sender address such as "Meridian <no-reply@example.com>"')
    .default('Meridian <no-reply@meridian.local>')
    .describe('sender of every email'),
  APP_URL: env.url().default('http://localhost:8080').describe('public base URL: links in emails'),
  SECRETS_KEY: env
    .hexKey(32)
    .optional()
    .describe(
      '64 hex chars: the AES-256-GCM key opening what identity seals in events (the same value as identity)',
    ),
  EMAIL_MAX_ATTEMPTS: positiveInt(8).describe(
    'delivery attempts per email before it is given up (EmailFailed)',
  ),
  EMAIL_RETRY_BASE_MS: positiveInt(1_000).describe(
    'first retry delay, ms; doubles per failed attempt up to EMAIL_RETRY_MAX_MS',
  ),
  EMAIL_RETRY_MAX_MS: positiveInt(5 * 60_000).describe('longest retry delay, ms'),
  AUTOMATED_EMAIL_LIMIT_PER_HOUR: positiveInt(10).describe('SendAutomatedEmail: emails per user per hour'),
});

export const notificationEnvSchema = withDevDefaults(variables, DEV_DEFAULTS, ['SMTP_URL']);
export type NotificationConfig = z.infer<typeof notificationEnvSchema>;
export const parseNotificationConfig = envParser(notificationEnvSchema);
