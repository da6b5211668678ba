/**
 * The audit trail and the security events: the consumer that keeps both read models from every
 * service's topic (group 'identity-audit', idempotent), and the two queries behind AuditService.
 */
import { subscribeIdempotentToTopics, type TopicsDeps } from '@meridian/platform/app/consumer';
import { invalid } from '@meridian/platform/eventSourcing/errors';
import type { ClaimTakenOver } from '@meridian/proto/meridian/identity/v1/events';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf, type Subscription } from '@meridian/platform/ports/eventBus';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  AUDIT_ENTRIES,
  auditEntryOf,
  SECURITY_EVENTS,
  securityEventOf,
  serviceOfTopic,
  type AuditEntryDoc,
  type SecurityEventDoc,
} from '../projections/audit.js';
import { findUserIdByEmail, getUserView } from '../projections/userView.js';
import { isSealed, SEALED_PREFIX, SHREDDED } from '@meridian/platform/personalData';
import { actorOf, metaFor, type CallerInput, type IdentityContext } from './context.js';
import { resolveCaller } from './sessions.js';
import { requireAdmin } from './admin.js';

export const AUDIT_GROUP = 'identity-audit';
/** Every service whose actions the trail records (identity's own events come back through its topic). */
export const AUDITED_TOPICS: readonly string[] = [
  'identity',
  'ledger',
  'investment',
  'withdrawal',
  'kyc',
].map(topicOf);

/** Applies one event of `topic` to the audit trail and the security events, inside tx. */
export const applyAuditEvent =
  (topic: string) =>
  async (event: StoredEvent, tx: StoreTx): Promise<void> => {
    const entry = auditEntryOf(event, serviceOfTopic(topic));
    if (entry) await tx.put<AuditEntryDoc>(AUDIT_ENTRIES, entry.id, entry);
    if (topic === topicOf('identity')) {
      const security = securityEventOf(event);
      if (security) await tx.put<SecurityEventDoc>(SECURITY_EVENTS, security.id, security);
    }
  };

export function subscribeAudit(deps: TopicsDeps): Promise<Subscription[]> {
  return subscribeIdempotentToTopics({
    bus: deps.bus,
    store: deps.store,
    topics: deps.topics ?? AUDITED_TOPICS,
    group: AUDIT_GROUP,
    fromBeginning: true,
    handleOf: applyAuditEvent,
  });
}

export interface AuditQuery {
  adminId?: string;
  userId?: string;
  action?: string;
  /** ISO-8601, inclusive */
  from?: string;
  /** ISO-8601, exclusive */
  to?: string;
  limit?: number;
  /** the sortKey of the last entry of the previous page */
  cursor?: string;
}

export type AuditEntry = AuditEntryDoc & { adminEmail: string; userEmail: string };

const ISO = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;
const ID = /^[A-Za-z0-9_.:@-]{1,100}$/;
const BATCH = 200;

function checkQuery(q: AuditQuery): void {
  for (const [name, v] of [
    ['admin', q.adminId],
    ['user', q.userId],
    ['action', q.action],
  ] as const) {
    if (v && !ID.test(v)) throw invalid(`Invalid ${name} filter`);
  }
  for (const v of [q.from, q.to])
    if (v && (!ISO.test(v) || Number.isNaN(Date.parse(v)))) throw invalid('Invalid period');
  if (q.cursor && q.cursor.length > 200) throw invalid('Invalid cursor');
}

const normalIso = (v?: string) => (v ? new Date(v).toISOString() : undefined);

/** Newest first; equality filters in the store, the period and the cursor while scanning in order. */
export async function queryAuditEntries(
  store: StoreReads,
  q: AuditQuery,
): Promise<{ entries: AuditEntryDoc[]; nextCursor: string }> {
  checkQuery(q);
  const limit = Math.min(Math.max(q.limit || 50, 1), 500);
  const from = normalIso(q.from);
  const to = normalIso(q.to);
  const where: Record<string, string> = {};
  if (q.adminId) where.adminId = q.adminId;
  if (q.userId) where.userId = q.userId;
  if (q.action) where.action = q.action;
  const out: AuditEntryDoc[] = [];
  for (let offset = 0; out.length <= limit; offset += BATCH) {
    const batch = await store.find<AuditEntryDoc>(AUDIT_ENTRIES, {
      where,
      orderBy: { field: 'sortKey', direction: 'desc' },
      limit: BATCH,
      offset,
    });
    for (const e of batch) {
      if (q.cursor && e.sortKey >= q.cursor) continue;
      if (to && e.at >= to) continue;
      if (from && e.at < from) return { entries: out.slice(0, limit), nextCursor: '' };
      out.push(e);
      if (out.length > limit) break;
    }
    if (batch.length < BATCH) break;
  }
  const more = out.length > limit;
  const entries = out.slice(0, limit);
  return { entries, nextCursor: more ? entries[entries.length - 1].sortKey : '' };
}

/** Admin only: the audit trail, with the admin's and the user's email. */
export async function listAuditEntries(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  q: AuditQuery,
): Promise<{ entries: AuditEntry[]; nextCursor: string }> {
  await requireAdmin(ctx, callerInput);
  // an admin or user given by email: the account's id (an unknown email matches nothing)
  const idOf = async (v?: string) =>
    v?.includes('@')
      ? ((await findUserIdByEmail(ctx.store, v.trim(), ctx.crypto.emailIndex)) ?? 'unknown')
      : v;
  const page = await queryAuditEntries(ctx.store, {
    ...q,
    adminId: await idOf(q.adminId),
    userId: await idOf(q.userId),
  });
  const emails = new Map<string, string>();
  // a deleted user's row stays (who did what, when) with their email read as '[deleted]'
  const emailOf = async (id: string) => {
    if (!id) return '';
    if (!emails.has(id)) {
      const view = await getUserView(ctx.store, id);
      emails.set(id, view ? await ctx.personalData.open(view.email) : SHREDDED);
    }
    return emails.get(id)!;
  };
  const entries: AuditEntry[] = [];
  for (const e of page.entries)
    entries.push({
      ...e,
      // identity's own events keep the actor's address sealed with the actor's key (a deleted one: '[deleted]')
      address: await ctx.personalData.open(e.address),
      details: await openDetails(ctx, e.details),
      adminEmail: await emailOf(e.adminId),
      userEmail: await emailOf(e.userId),
    });
  return { entries, nextCursor: page.nextCursor };
}

/**
 * An entry's details (the event's data as JSON) with the personal values it carries sealed opened; those of
 * a deleted user (their key is gone) read '[deleted]'.
 */
async function openDetails(ctx: IdentityContext, details: string): Promise<string> {
  if (!details.includes(SEALED_PREFIX)) return details;
  const open = async (v: unknown): Promise<unknown> => {
    if (isSealed(v)) return ctx.personalData.open(v);
    if (Array.isArray(v)) return Promise.all(v.map(open));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        await Promise.all(
          Object.entries(v as Record<string, unknown>).map(async ([k, x]) => [k, await open(x)]),
        ),
      );
    return v;
  };
  try {
    return JSON.stringify(await open(JSON.parse(details)));
  } catch {
    return details;
  }
}

/** The caller's own security events, newest first (the addresses, kept sealed with the user's key, opened). */
export async function listSecurityEvents(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  limit?: number,
): Promise<SecurityEventDoc[]> {
  const caller = await resolveCaller(ctx, callerInput);
  const events = await ctx.store.find<SecurityEventDoc>(SECURITY_EVENTS, {
    where: { userId: caller.userId },
    orderBy: { field: 'sortKey', direction: 'desc' },
    limit: Math.min(Math.max(limit || 50, 1), 200),
  });
  return Promise.all(events.map(async (e) => ({ ...e, address: await ctx.personalData.open(e.address) })));
}

/** The admin queues whose items the gateway's claim locks cover. */
export const CLAIM_KINDS = ['deposit', 'investment', 'withdrawal', 'kyc'] as const;
export const CLAIM_TAKEN_OVER = 'ClaimTakenOver';
const ITEM_ID = /^[A-Za-z0-9_.:@-]{1,512}$/;
export const toClaimTakeoverStreamId = (adminId: string) => `claim-takeovers-${adminId}`;

/**
 * Admin only: records that the caller took over another admin's claim on a pending item (the gateway's claim
 * locks) as ClaimTakenOver on `claim-takeovers-<adminId>`, with the caller (and their address) as the actor:
 * published like every identity event, it becomes an entry of the audit trail (who, from whom, which item,
 * when, from which address).
 */
export async function recordClaimTakeover(
  ctx: IdentityContext,
  callerInput: CallerInput | undefined,
  input: { kind: string; itemId: string; fromAdminId: string },
): Promise<string> {
  const caller = await requireAdmin(ctx, callerInput);
  if (!(CLAIM_KINDS as readonly string[]).includes(input.kind)) throw invalid('Invalid claim kind');
  if (!ITEM_ID.test(input.itemId)) throw invalid('Invalid item id');
  if (!ID.test(input.fromAdminId) || input.fromAdminId === caller.userId)
    throw invalid('Invalid admin the claim was taken from');
  const data: ClaimTakenOver = {
    kind: input.kind,
    itemId: input.itemId,
    adminId: caller.userId,
    fromAdminId: input.fromAdminId,
    userId: input.fromAdminId,
    takenOverAt: ctx.clock().toISOString(),
  };
  // published like every identity event (the store records its integration event: withIntegrationEvents)
  await ctx.store.transaction((tx) =>
    tx.appendToStream(
      toClaimTakeoverStreamId(caller.userId),
      'any',
      [{ type: CLAIM_TAKEN_OVER, data }],
      metaFor(caller.correlationId, actorOf(caller), ctx),
    ),
  );
  return 'Claim takeover recorded';
}
