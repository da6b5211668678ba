/**
 * SendAutomatedEmail (docs/architecture.md §7): the SPA's own notices. Only allowlisted templates, only to the
 * caller's own address, a link only under APP_URL, and a per-user hourly limit. The email goes
 * through the same outbox as every other email.
 */
import { DomainError, forbidden, invalid, unauthenticated } from '@meridian/platform/eventSourcing/errors';
import { UserKeyDestroyedError, type PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { automatedTemplateNames, isTemplateName, templates } from '../domain/templates/registry.js';
import { RATE_LIMITS } from './collections.js';
import { queueEmail } from './queueEmail.js';

export const AUTOMATED_EMAIL_MESSAGES = {
  sent: 'Email sent successfully',
  ownAddressOnly: 'You can only send emails to your own address',
  templateNotAllowed: 'This email template is not allowed',
  linkNotAllowed: 'The link must point to this site',
  tooMany: 'Too many emails, please try again later',
} as const;

export interface SendAutomatedEmailInput {
  userId: string;
  impersonatorId?: string;
  correlationId: string;
  callerEmail: string;
  callerName: string;
  subject: string;
  sendTo: string;
  replyTo: string;
  template: string;
  url: string;
}

export interface SendAutomatedEmailDeps {
  store: ServiceStore;
  clock: () => Date;
  newId: () => string;
  appUrl: string;
  limitPerHour: number;
  /** Seals the caller's address, name and the email's texts with the caller's key in the outbox. */
  personalData: PersonalData;
}

const HOUR_MS = 60 * 60 * 1000;
const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A link is accepted when it stays on APP_URL's origin; a bare path is resolved against APP_URL. */
export function resolveSiteLink(url: string, appUrl: string): string | null {
  const base = new URL(appUrl);
  const trimmed = url.trim();
  if (!trimmed) return new URL('/dashboard', base).toString();
  if (trimmed.startsWith('//')) return null;
  let resolved: URL;
  try {
    resolved = trimmed.startsWith('/') ? new URL(trimmed, base) : new URL(trimmed);
  } catch {
    return null;
  }
  return resolved.origin === base.origin ? resolved.toString() : null;
}

export async function sendAutomatedEmail(
  input: SendAutomatedEmailInput,
  deps: SendAutomatedEmailDeps,
): Promise<{ message: string }> {
  if (!input.userId) throw unauthenticated('Please log in');
  // the caller's address and name as the gateway has them (opened, should they come sealed)
  const callerEmail = await deps.personalData.open(input.callerEmail, '');
  const callerName = await deps.personalData.open(input.callerName, '');
  const own = callerEmail.trim().toLowerCase();
  const to = input.sendTo.trim().toLowerCase();
  if (!own || !to || own !== to) throw forbidden(AUTOMATED_EMAIL_MESSAGES.ownAddressOnly, 'not_own_address');
  if (!isTemplateName(input.template) || !templates[input.template].automated) {
    throw invalid(
      `${AUTOMATED_EMAIL_MESSAGES.templateNotAllowed}. Allowed: ${automatedTemplateNames.join(', ')}`,
      'template_not_allowed',
    );
  }
  const url = resolveSiteLink(input.url, deps.appUrl);
  if (!url) throw invalid(AUTOMATED_EMAIL_MESSAGES.linkNotAllowed, 'link_not_allowed');
  const subject = input.subject
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 150);
  const replyTo = SIMPLE_EMAIL.test(input.replyTo.trim()) ? input.replyTo.trim() : undefined;

  const now = deps.clock();
  const id = deps.newId();
  await deps.store.transaction(async (tx) => {
    // fixed hourly window, counted in the same transaction as the email: atomic and durable
    const windowStart = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
    const key = `automated:${input.userId}:${windowStart}`;
    const counter = (await tx.get<{ count: number }>(RATE_LIMITS, key)) ?? { count: 0 };
    if (counter.count >= deps.limitPerHour)
      throw new DomainError('rate_limited', AUTOMATED_EMAIL_MESSAGES.tooMany, 'rate_limited');
    await tx.put(RATE_LIMITS, key, { count: counter.count + 1, userId: input.userId, windowStart });
    const queued = await queueEmail(
      tx,
      {
        template: input.template as (typeof automatedTemplateNames)[number],
        to: callerEmail.trim(),
        userId: input.userId,
        replyTo,
        data: { name: callerName, url, ...(subject ? { subject } : {}) },
      },
      {
        id,
        correlationId: input.correlationId,
        actor: {
          userId: input.userId,
          role: '',
          ...(input.impersonatorId ? { impersonatorId: input.impersonatorId } : {}),
        },
      },
      now,
      deps.personalData,
    );
    // the caller was deleted meanwhile (their key is gone): refused, nothing counted or queued
    if (!queued) throw new UserKeyDestroyedError(input.userId);
  });
  return { message: AUTOMATED_EMAIL_MESSAGES.sent };
}
