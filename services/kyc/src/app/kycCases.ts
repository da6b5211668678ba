/**
 * Use cases of the kyc service: submit, approve, reject, the pending list, one user's status, and
 * finding a document to stream. Each command runs decide() on the case's stream and writes events,
 * outbox and read model in one transaction.
 */
import { forbidden, notFound, unauthenticated } from '@meridian/platform/eventSourcing/errors';
import { findPage, pageRequest, type Page } from '@meridian/platform/ports/pages';
import {
  type CommandResult,
  type CommandStream,
  handleCommand,
  loadStream,
  projectDocument,
} from '@meridian/platform/app/commandHandler';
import { eventMeta } from '@meridian/platform/app/requestContext';
import { countedWrite, pendingCount, type PendingCounter } from '@meridian/platform/ports/pendingCount';
import {
  domainEventOf,
  type Actor,
  type EventMeta,
  type StoredEvent,
} from '@meridian/platform/eventSourcing/types';
import type { ServiceStore, StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import { isSealed, type PersonalData } from '@meridian/platform/personalData';
import {
  assertCanSubmit,
  documentLink,
  kycCaseDecider,
  MESSAGES,
  toKycStreamId,
  type DocumentRef,
  type KycCommand,
  type KycEvent,
  type KycState,
  type Side,
} from '../domain/kycCase.js';
import { projectKycCase, type KycCaseView } from '../projections/kycCaseView.js';
import { CASES, USERS } from './collections.js';

export interface KycContext {
  store: ServiceStore;
  clock: () => Date;
  newId: () => string;
  /** Seals and opens personal data (names, emails, documents) with each owner's key (crypto-shredding). */
  personalData: PersonalData;
}

/** A caller as the gateway established it (session -> identity's Authenticate). */
export interface KycCaller extends Actor {
  correlationId: string;
}

export const NOT_LOGGED_IN = 'Not authorized, please login';

/** The case's read model (one document a user, deleted when the case is erased) after `events` of its stream. */
export async function projectCase(
  tx: StoreTx,
  events: readonly StoredEvent<KycEvent>[],
  userId: string,
): Promise<void> {
  await countedWrite(tx, PENDING_CASES, userId, () =>
    projectDocument<KycEvent, KycCaseView>(
      tx,
      CASES,
      userId,
      events,
      (view, e) => projectKycCase(view, domainEventOf(e)),
      'delete',
    ),
  );
}

/**
 * The admin queue's size: a counter of the Pending cases (platform ports/pendingCount.ts), moved by
 * projectCase in the transaction that moves a case into or out of Pending.
 */
export const PENDING_CASES: PendingCounter = {
  id: 'pending-kycCases',
  collection: CASES,
  where: { status: 'Pending' },
};

/** The case's stream, with its read model. */
const KYC_STREAM: CommandStream<KycCommand, KycEvent, KycState> = {
  decider: kycCaseDecider,
  streamIdOf: toKycStreamId,
  project: projectCase,
};

export const loadCase = (reads: StoreReads, userId: string): Promise<{ version: number; state: KycState }> =>
  loadStream(reads, KYC_STREAM, userId);

/** decide -> append (expected version) -> project, inside tx: the platform's command handler. */
export const execute = (
  tx: StoreTx,
  userId: string,
  command: KycCommand,
  meta: EventMeta,
): Promise<CommandResult<KycEvent, KycState>> => handleCommand(tx, KYC_STREAM, userId, command, meta);

/** The refusal the user would get, before any bytes are stored (asked again on commit). */
export async function checkCanSubmit(
  store: ServiceStore,
  caller: KycCaller,
  isVerified: boolean,
): Promise<void> {
  requireCaller(caller);
  assertCanSubmit((await loadCase(store, caller.userId)).state, {
    isVerified,
    impersonatorId: caller.impersonatorId,
  });
}

export interface SubmitInput {
  caller: KycCaller;
  isVerified: boolean;
  /** From the gateway's trusted headers when it sent them; else identity's events seen by this service. */
  name?: string;
  email?: string;
  front: DocumentRef;
  back: DocumentRef;
}

/** A personal value as the person sent it, sealed with their key ('' and values already sealed as they are). */
const sealed = async (personalData: PersonalData, userId: string, value: string | undefined) =>
  !value || isSealed(value) ? (value ?? '') : personalData.seal(userId, value);

/**
 * Records a submission. Resolves with the documents of the replaced (rejected) submission, to delete.
 * The name and email go into the events sealed with the user's key: the gateway's (sent in clear) are
 * sealed here; those of identity's events arrived sealed and are copied as they are.
 */
export async function submitKyc(ctx: KycContext, input: SubmitInput): Promise<{ replaced: DocumentRef[] }> {
  const { caller } = input;
  requireCaller(caller);
  const name = await sealed(ctx.personalData, caller.userId, input.name);
  const email = await sealed(ctx.personalData, caller.userId, input.email);
  return ctx.store.transaction(async (tx) => {
    const known = await tx.get<{ name: string; email: string }>(USERS, caller.userId);
    const { before } = await execute(
      tx,
      caller.userId,
      {
        type: 'SubmitKyc',
        userId: caller.userId,
        submissionId: ctx.newId(),
        isVerified: input.isVerified,
        impersonatorId: caller.impersonatorId,
        name: name || known?.name || '',
        email: email || known?.email || '',
        front: input.front,
        back: input.back,
        now: ctx.clock(),
      },
      eventMeta(caller.correlationId, caller),
    );
    const keep = new Set([input.front.documentId, input.back.documentId]);
    return {
      replaced: [before.front, before.back].filter(
        (d): d is DocumentRef => d !== null && !keep.has(d.documentId),
      ),
    };
  });
}

function requireCaller(caller: KycCaller): void {
  if (!caller.userId) throw unauthenticated(NOT_LOGGED_IN);
}

/** An admin's decision on the user's pending case (the decider checks the admin's role). */
async function decideCase(
  ctx: KycContext,
  caller: KycCaller,
  userId: string,
  decision: { type: 'ApproveKyc' } | { type: 'RejectKyc'; reason: string },
): Promise<void> {
  requireCaller(caller);
  const command: KycCommand = {
    ...decision,
    userId,
    adminId: caller.userId,
    adminRole: caller.role,
    now: ctx.clock(),
  };
  await ctx.store.transaction((tx) => execute(tx, userId, command, eventMeta(caller.correlationId, caller)));
}

export async function approveKyc(
  ctx: KycContext,
  caller: KycCaller,
  userId: string,
): Promise<{ message: string }> {
  await decideCase(ctx, caller, userId, { type: 'ApproveKyc' });
  return { message: MESSAGES.approved };
}

export async function rejectKyc(
  ctx: KycContext,
  caller: KycCaller,
  userId: string,
  reason: string,
): Promise<{ message: string }> {
  await decideCase(ctx, caller, userId, { type: 'RejectKyc', reason });
  return { message: MESSAGES.rejected };
}

export interface PendingUserView {
  userId: string;
  name: string;
  email: string;
  kycStatus: string;
  frontDoc: string;
  backDoc: string;
  submittedAt: string;
}

/**
 * Admin: Pending cases, oldest first. Only what the review screen needs (no ids of stored files). Names
 * and emails are opened ('[deleted]' once the user's key is gone).
 */
export async function listPending(
  ctx: Pick<KycContext, 'store' | 'personalData'>,
  caller: KycCaller,
  paging: { limit?: number; cursor?: string } = {},
): Promise<Page<PendingUserView>> {
  requireCaller(caller);
  if (caller.role !== 'admin') throw forbidden(MESSAGES.notAdmin);
  // all of the queue, or a keyset page of it (platform ports/pages.ts; the index: KYC_INDEXES)
  const page = await findPage<KycCaseView>(
    ctx.store,
    CASES,
    { where: { status: 'Pending' }, orderBy: { field: 'submittedAt', direction: 'asc' }, idOf: (v) => v.id },
    pageRequest(paging),
  );
  const open = (value: string) => ctx.personalData.open(value);
  const items = await Promise.all(
    page.items.map(async (v) => ({
      userId: v.userId,
      name: await open(v.name),
      email: await open(v.email),
      kycStatus: v.status,
      frontDoc: v.frontDoc,
      backDoc: v.backDoc,
      submittedAt: v.submittedAt,
    })),
  );
  return { items, nextCursor: page.nextCursor };
}

/** Admin: how many cases wait in the queue (the counter; never a read of the queue). */
export async function countPending(
  ctx: Pick<KycContext, 'store'>,
  caller: KycCaller,
): Promise<{ count: number }> {
  requireCaller(caller);
  if (caller.role !== 'admin') throw forbidden(MESSAGES.notAdmin);
  return { count: await pendingCount(ctx.store, PENDING_CASES) };
}

export interface KycStatusView {
  userId: string;
  status: KycState['status'];
  rejectionReason: string;
  frontDoc: string;
  backDoc: string;
  submittedAt: string;
  decidedAt: string;
}

export async function getStatus(store: StoreReads, userId: string): Promise<KycStatusView> {
  const view = userId ? await store.get<KycCaseView>(CASES, userId) : null;
  if (!view)
    return {
      userId,
      status: 'Not Submitted',
      rejectionReason: '',
      frontDoc: '',
      backDoc: '',
      submittedAt: '',
      decidedAt: '',
    };
  return {
    userId,
    status: view.status,
    rejectionReason: view.status === 'Rejected' ? view.rejectionReason : '',
    frontDoc: view.frontDoc,
    backDoc: view.backDoc,
    submittedAt: view.submittedAt,
    decidedAt: view.decidedAt,
  };
}

export const DOCUMENT_NOT_FOUND = 'Document not found';
export const DOCUMENT_FORBIDDEN = 'Not authorized to view this document';

/** The current document of a user's side, for the owner or an admin (the HTTP adapter checks the caller). */
export async function findDocument(store: StoreReads, userId: string, side: Side): Promise<DocumentRef> {
  const view = await store.get<KycCaseView>(CASES, userId);
  const ref = view?.[side];
  if (!ref) throw notFound(DOCUMENT_NOT_FOUND);
  return ref;
}

export { documentLink };
