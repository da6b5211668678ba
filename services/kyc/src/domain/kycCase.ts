/**
 * KycCase: one identity-verification case per user (stream `kyc-<userId>`).
 *
 *   Not Submitted --Submit--> Pending --Approve--> Approved
 *                                    \--Reject---> Rejected --Submit--> Pending ...
 *
 * Submit needs a verified email and is refused while Pending or Approved. A Pending submission is
 * decided once: a second Approve/Reject is a conflict; never by the case's own user, even an admin
 * (maker-checker). Erase (the user was deleted) forgets the case.
 * Time, ids and the caller come in the command; nothing here touches I/O.
 */
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { MAKER_CHECKER_MESSAGES, refuseOwnDecision } from '@meridian/platform/domain/makerChecker';

export type KycStatus = 'Not Submitted' | 'Pending' | 'Approved' | 'Rejected';
export type Side = 'front' | 'back';
export const SIDES: readonly Side[] = ['front', 'back'];

export const MESSAGES = {
  verifyEmailFirst: 'Please verify your email before uploading documents',
  alreadyUnderReview: 'Your documents are already under review',
  alreadyVerified: 'Your identity is already verified',
  uploaded: 'KYC documents uploaded successfully!',
  approved: 'KYC approved successfully!',
  rejected: 'KYC rejected successfully!',
  noSubmission: 'No KYC submission found for this user',
  alreadyApproved: 'This KYC request has already been approved',
  alreadyRejected: 'This KYC request has already been rejected',
  notAdmin: 'Not authorized as an admin',
  reasonTooLong: 'The rejection reason must be at most 500 characters',
  ownCase: MAKER_CHECKER_MESSAGES.ownDecision('KYC case'),
  /** Maker-checker: an admin acting as the user would otherwise upload documents and then approve them. */
  impersonating: MAKER_CHECKER_MESSAGES.kycUploadImpersonating,
} as const;

export const DEFAULT_REJECTION_REASON =
  "Your documents could not be verified. Please upload clear images of the front and back of a valid passport, national ID or driver's license.";
export const MAX_REASON_LENGTH = 500;

/** A stored document as the case knows it (the bytes live in the document store). */
export interface DocumentRef {
  documentId: string;
  contentType: string;
  size: number;
}

/** The authenticated gateway link that streams a document to admins and its owner. */
export const documentLink = (userId: string, side: Side): string =>
  `/api/users/kyc/document/${encodeURIComponent(userId)}/${side}`;

export const toKycStreamId = (userId: string): string => `kyc-${userId}`;

// ---- events ----
export type KycEvent =
  | {
      type: 'KycSubmitted';
      data: {
        userId: string;
        submissionId: string;
        name: string;
        email: string;
        submittedAt: string;
        frontDoc: string;
        backDoc: string;
        front: DocumentRef;
        back: DocumentRef;
      };
    }
  | {
      type: 'KycApproved';
      data: {
        userId: string;
        submissionId: string;
        name: string;
        email: string;
        approvedBy: string;
        approvedAt: string;
      };
    }
  | {
      type: 'KycRejected';
      data: {
        userId: string;
        submissionId: string;
        name: string;
        email: string;
        reason: string;
        rejectedBy: string;
        rejectedAt: string;
      };
    }
  | { type: 'KycCaseErased'; data: { userId: string; erasedAt: string } };

// ---- commands ----
export type KycCommand =
  | {
      type: 'SubmitKyc';
      userId: string;
      submissionId: string;
      /** From identity, via the gateway's trusted header. */
      isVerified: boolean;
      /** The admin acting as the user (impersonation), when there is one: refused. */
      impersonatorId?: string;
      name: string;
      email: string;
      front: DocumentRef;
      back: DocumentRef;
      now: Date;
    }
  | { type: 'ApproveKyc'; userId: string; adminId: string; adminRole: string; now: Date }
  | { type: 'RejectKyc'; userId: string; adminId: string; adminRole: string; reason: string; now: Date }
  | { type: 'EraseKyc'; userId: string; now: Date };

// ---- state ----
export interface KycState {
  status: KycStatus;
  /** false until the first event (and again after erasure). */
  exists: boolean;
  submissionId: string | null;
  name: string;
  email: string;
  front: DocumentRef | null;
  back: DocumentRef | null;
  submittedAt: string | null;
  decidedAt: string | null;
  rejectionReason: string | null;
}

export const initialState = (): KycState => ({
  status: 'Not Submitted',
  exists: false,
  submissionId: null,
  name: '',
  email: '',
  front: null,
  back: null,
  submittedAt: null,
  decidedAt: null,
  rejectionReason: null,
});

export function evolve(state: KycState, event: KycEvent): KycState {
  switch (event.type) {
    case 'KycSubmitted':
      return {
        status: 'Pending',
        exists: true,
        submissionId: event.data.submissionId,
        name: event.data.name,
        email: event.data.email,
        front: event.data.front,
        back: event.data.back,
        submittedAt: event.data.submittedAt,
        decidedAt: null,
        rejectionReason: null,
      };
    case 'KycApproved':
      return { ...state, status: 'Approved', decidedAt: event.data.approvedAt };
    case 'KycRejected':
      return {
        ...state,
        status: 'Rejected',
        decidedAt: event.data.rejectedAt,
        rejectionReason: event.data.reason,
      };
    case 'KycCaseErased':
      return initialState();
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * Whether a user in this state may submit documents: throws the refusal the user sees. The upload
 * endpoint asks before it stores any bytes; decide() asks again when it commits.
 */
export function assertCanSubmit(
  state: KycState,
  submitter: { isVerified: boolean; impersonatorId?: string },
): void {
  if (submitter.impersonatorId) throw forbidden(MESSAGES.impersonating, 'IMPERSONATING');
  if (!submitter.isVerified) throw precondition(MESSAGES.verifyEmailFirst, 'EMAIL_NOT_VERIFIED');
  if (state.status === 'Pending') throw conflict(MESSAGES.alreadyUnderReview, 'KYC_PENDING');
  if (state.status === 'Approved') throw conflict(MESSAGES.alreadyVerified, 'KYC_APPROVED');
}

/** An admin decides a Pending case once, never their own (maker-checker). */
function assertDecidable(
  state: KycState,
  command: { userId: string; adminId: string; adminRole: string },
): void {
  if (command.adminRole !== 'admin') throw forbidden(MESSAGES.notAdmin);
  refuseOwnDecision(command.adminId, command.userId, MESSAGES.ownCase);
  switch (state.status) {
    case 'Pending':
      return;
    case 'Not Submitted':
      throw notFound(MESSAGES.noSubmission, 'KYC_NOT_SUBMITTED');
    case 'Approved':
      throw conflict(MESSAGES.alreadyApproved, 'KYC_ALREADY_DECIDED');
    case 'Rejected':
      throw conflict(MESSAGES.alreadyRejected, 'KYC_ALREADY_DECIDED');
    default: {
      const _exhaustive: never = state.status;
      throw invalid('Unknown KYC status');
    }
  }
}

/** The reason the user sees: trimmed, a default when empty, at most MAX_REASON_LENGTH characters. */
export function normaliseReason(reason: string): string {
  const text = reason.trim().replace(/\s+/g, ' ');
  if (text.length === 0) return DEFAULT_REJECTION_REASON;
  if (text.length > MAX_REASON_LENGTH) throw invalid(MESSAGES.reasonTooLong);
  return text;
}

/** What a decision event repeats of the submission it decides. */
const decidedSubmission = (userId: string, state: KycState) => ({
  userId,
  submissionId: state.submissionId ?? '',
  name: state.name,
  email: state.email,
});

export function decide(command: KycCommand, state: KycState): KycEvent[] {
  switch (command.type) {
    case 'SubmitKyc': {
      assertCanSubmit(state, command);
      return [
        {
          type: 'KycSubmitted',
          data: {
            userId: command.userId,
            submissionId: command.submissionId,
            name: command.name,
            email: command.email,
            submittedAt: command.now.toISOString(),
            frontDoc: documentLink(command.userId, 'front'),
            backDoc: documentLink(command.userId, 'back'),
            front: command.front,
            back: command.back,
          },
        },
      ];
    }
    case 'ApproveKyc':
      assertDecidable(state, command);
      return [
        {
          type: 'KycApproved',
          data: {
            ...decidedSubmission(command.userId, state),
            approvedBy: command.adminId,
            approvedAt: command.now.toISOString(),
          },
        },
      ];
    case 'RejectKyc': {
      assertDecidable(state, command);
      return [
        {
          type: 'KycRejected',
          data: {
            ...decidedSubmission(command.userId, state),
            reason: normaliseReason(command.reason),
            rejectedBy: command.adminId,
            rejectedAt: command.now.toISOString(),
          },
        },
      ];
    }
    case 'EraseKyc':
      return state.exists
        ? [{ type: 'KycCaseErased', data: { userId: command.userId, erasedAt: command.now.toISOString() } }]
        : [];
    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const kycCaseDecider: Decider<KycCommand, KycEvent, KycState> = { decide, evolve, initialState };
