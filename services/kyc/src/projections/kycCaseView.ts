/**
 * The read model of a case (collection `kycCases`, id = userId): what the pending list, the status
 * query and the document endpoint read. Pure.
 */
import type { DocumentRef, KycEvent, KycStatus } from '../domain/kycCase.js';

export interface KycCaseView {
  id: string;
  userId: string;
  status: KycStatus;
  submissionId: string;
  name: string;
  email: string;
  front: DocumentRef | null;
  back: DocumentRef | null;
  frontDoc: string;
  backDoc: string;
  submittedAt: string;
  decidedAt: string;
  decidedBy: string;
  rejectionReason: string;
}

/** The next view after `event`; null when the case is gone (erased). */
export function projectKycCase(view: KycCaseView | null, event: KycEvent): KycCaseView | null {
  switch (event.type) {
    case 'KycSubmitted':
      return {
        id: event.data.userId,
        userId: event.data.userId,
        status: 'Pending',
        submissionId: event.data.submissionId,
        name: event.data.name,
        email: event.data.email,
        front: event.data.front,
        back: event.data.back,
        frontDoc: event.data.frontDoc,
        backDoc: event.data.backDoc,
        submittedAt: event.data.submittedAt,
        decidedAt: '',
        decidedBy: '',
        rejectionReason: '',
      };
    case 'KycApproved':
      return (
        view && {
          ...view,
          status: 'Approved',
          decidedAt: event.data.approvedAt,
          decidedBy: event.data.approvedBy,
        }
      );
    case 'KycRejected':
      return (
        view && {
          ...view,
          status: 'Rejected',
          decidedAt: event.data.rejectedAt,
          decidedBy: event.data.rejectedBy,
          rejectionReason: event.data.reason,
        }
      );
    case 'KycCaseErased':
      return null;
    default: {
      const _exhaustive: never = event;
      return view;
    }
  }
}
