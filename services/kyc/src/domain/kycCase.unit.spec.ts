import { describe, expect, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import {
  DEFAULT_REJECTION_REASON,
  kycCaseDecider,
  MESSAGES,
  type DocumentRef,
  type KycCommand,
  type KycEvent,
} from './kycCase.js';

const spec = DeciderSpecification.for(kycCaseDecider);
const t0 = new Date('2026-02-01T09:00:00.000Z');
const t1 = new Date('2026-02-01T10:00:00.000Z');
const front: DocumentRef = { documentId: 'doc-f1', contentType: 'image/png', size: 1200 };
const back: DocumentRef = { documentId: 'doc-b1', contentType: 'application/pdf', size: 3400 };

const submit = (over: Partial<Extract<KycCommand, { type: 'SubmitKyc' }>> = {}): KycCommand => ({
  type: 'SubmitKyc',
  userId: 'u1',
  submissionId: 's1',
  isVerified: true,
  name: 'Ada',
  email: 'ada@example.com',
  front,
  back,
  now: t0,
  ...over,
});
const approve: KycCommand = {
  type: 'ApproveKyc',
  userId: 'u1',
  adminId: 'admin1',
  adminRole: 'admin',
  now: t1,
};
const reject = (reason = 'Blurry photo'): KycCommand => ({
  type: 'RejectKyc',
  userId: 'u1',
  adminId: 'admin1',
  adminRole: 'admin',
  reason,
  now: t1,
});

const submitted = (submissionId = 's1'): KycEvent => ({
  type: 'KycSubmitted',
  data: {
    userId: 'u1',
    submissionId,
    name: 'Ada',
    email: 'ada@example.com',
    submittedAt: t0.toISOString(),
    frontDoc: '/api/users/kyc/document/u1/front',
    backDoc: '/api/users/kyc/document/u1/back',
    front,
    back,
  },
});
const approved: KycEvent = {
  type: 'KycApproved',
  data: {
    userId: 'u1',
    submissionId: 's1',
    name: 'Ada',
    email: 'ada@example.com',
    approvedBy: 'admin1',
    approvedAt: t1.toISOString(),
  },
};
const rejected = (reason = 'Blurry photo'): KycEvent => ({
  type: 'KycRejected',
  data: {
    userId: 'u1',
    submissionId: 's1',
    name: 'Ada',
    email: 'ada@example.com',
    reason,
    rejectedBy: 'admin1',
    rejectedAt: t1.toISOString(),
  },
});

describe('KYC case decider', () => {
  describe('submit', () => {
    it('a verified user with no case submits: Pending, with the gateway document links', () => {
      spec.given([]).when(submit()).then([submitted()]);
    });

    it('is refused before the email is verified', () => {
      spec
        .given([])
        .when(submit({ isVerified: false }))
        .thenThrows(domainError('precondition', MESSAGES.verifyEmailFirst));
    });

    it('is refused while Pending', () => {
      spec
        .given([submitted()])
        .when(submit({ submissionId: 's2' }))
        .thenThrows(domainError('conflict', 'Your documents are already under review'));
    });

    it('is refused once Approved', () => {
      spec
        .given([submitted(), approved])
        .when(submit({ submissionId: 's2' }))
        .thenThrows(domainError('conflict', 'Your identity is already verified'));
    });

    it('is allowed again after Rejected, and the case is Pending with the new documents', () => {
      const newFront = { ...front, documentId: 'doc-f2' };
      spec
        .given([submitted(), rejected()])
        .when(submit({ submissionId: 's2', front: newFront }))
        .then((events) => {
          expect(events).toHaveLength(1);
          expect(events[0]).toMatchObject({
            type: 'KycSubmitted',
            data: { submissionId: 's2', front: newFront },
          });
          const state = [submitted(), rejected(), ...events].reduce(
            kycCaseDecider.evolve,
            kycCaseDecider.initialState(),
          );
          expect(state).toMatchObject({ status: 'Pending', rejectionReason: null, front: newFront });
        });
    });
  });

  describe('approve and reject', () => {
    it('an admin approves a Pending case', () => {
      spec.given([submitted()]).when(approve).then([approved]);
    });

    it('an admin rejects a Pending case with the reason the user sees', () => {
      spec
        .given([submitted()])
        .when(reject('  Blurry   photo '))
        .then([rejected('Blurry photo')]);
    });

    it('an empty reason becomes the default reason', () => {
      spec
        .given([submitted()])
        .when(reject(''))
        .then([rejected(DEFAULT_REJECTION_REASON)]);
    });

    it('refuses a reason longer than 500 characters', () => {
      spec
        .given([submitted()])
        .when(reject('x'.repeat(501)))
        .thenThrows(domainError('invalid', MESSAGES.reasonTooLong));
    });

    it('a decided case cannot be decided again', () => {
      spec
        .given([submitted(), approved])
        .when(approve)
        .thenThrows(domainError('conflict', 'This KYC request has already been approved'));
      spec
        .given([submitted(), approved])
        .when(reject())
        .thenThrows(domainError('conflict', 'This KYC request has already been approved'));
      spec
        .given([submitted(), rejected()])
        .when(reject())
        .thenThrows(domainError('conflict', 'This KYC request has already been rejected'));
      spec
        .given([submitted(), rejected()])
        .when(approve)
        .thenThrows(domainError('conflict', 'This KYC request has already been rejected'));
    });

    it('there is nothing to decide before a submission', () => {
      spec.given([]).when(approve).thenThrows(domainError('not_found', MESSAGES.noSubmission));
    });

    it('only an admin decides', () => {
      spec
        .given([submitted()])
        .when({ ...approve, adminRole: 'author' } as KycCommand)
        .thenThrows(domainError('forbidden', 'Not authorized as an admin'));
      spec
        .given([submitted()])
        .when({ ...reject(), adminRole: 'subscriber' } as KycCommand)
        .thenThrows(domainError('forbidden', 'Not authorized as an admin'));
    });
  });

  describe('maker-checker', () => {
    const OWN_CASE =
      'You cannot decide your own KYC case: another admin must review it (if you are the only admin, a second admin is needed)';
    it('an admin impersonating the user cannot submit for them (then approve alone)', () => {
      spec
        .given([])
        .when(submit({ impersonatorId: 'admin-7' }))
        .thenThrows(domainError('forbidden', 'KYC documents cannot be uploaded while impersonating a user'));
      spec
        .given([submitted(), rejected()])
        .when(submit({ submissionId: 's2', impersonatorId: 'admin-7' }))
        .thenThrows(domainError('forbidden', 'KYC documents cannot be uploaded while impersonating a user'));
    });

    it('an admin cannot approve or reject their own case; another admin can', () => {
      spec
        .given([submitted()])
        .when({ ...approve, adminId: 'u1' } as KycCommand)
        .thenThrows(domainError('forbidden', OWN_CASE));
      spec
        .given([submitted()])
        .when({ ...reject(), adminId: 'u1' } as KycCommand)
        .thenThrows(domainError('forbidden', OWN_CASE));
      spec.given([submitted()]).when(approve).then([approved]);
    });
  });

  describe('erase (user deleted)', () => {
    it('forgets an existing case; a later submission starts afresh', () => {
      const erased: KycEvent = { type: 'KycCaseErased', data: { userId: 'u1', erasedAt: t1.toISOString() } };
      spec.given([submitted(), approved]).when({ type: 'EraseKyc', userId: 'u1', now: t1 }).then([erased]);
      spec
        .given([submitted(), approved, erased])
        .when(submit({ submissionId: 's9' }))
        .then((events) => {
          expect(events[0]?.type).toBe('KycSubmitted');
        });
    });

    it('does nothing when there is no case', () => {
      spec.given([]).when({ type: 'EraseKyc', userId: 'u1', now: t1 }).thenNothingHappens();
    });
  });
});
