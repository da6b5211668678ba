import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { registered, userEvent as stored } from '../testing/events.js';
import { projectReferral, projectUser } from './userView.js';
import { projectExternalFact } from './externalFacts.js';

describe('user view projection', () => {
  it('starts with KYC Not Submitted, zero balances and the referral code', () => {
    expect(projectUser(null, registered())).toMatchObject({
      id: 'u1',
      kycStatus: 'Not Submitted',
      balanceCents: 0,
      investmentBalanceCents: 0,
      totalMaturityAmountCents: 0,
      referralCode: 'ABCDEFGH23',
      isVerified: false,
      bio: '',
      photo: '',
    });
  });

  it('follows verification, role changes, profile edits and deletion', () => {
    let view = projectUser(null, registered());
    view = projectUser(
      view,
      stored({ type: 'UserVerified', data: { userId: 'u1', verifiedAt: 'x' } }, '2026-01-02T00:00:00.000Z'),
    );
    expect(view).toMatchObject({ isVerified: true, updatedAt: '2026-01-02T00:00:00.000Z' });
    view = projectUser(
      view,
      stored({
        type: 'RoleChanged',
        data: { userId: 'u1', email: '', name: '', fromRole: 'subscriber', toRole: 'author', changedBy: 'a' },
      }),
    );
    expect(view?.role).toBe('author');
    view = projectUser(
      view,
      stored({
        type: 'ProfileUpdated',
        data: { userId: 'u1', fields: ['bio'], name: '', phone: '', bio: 'hello', country: '', photo: '' },
      }),
    );
    expect(view).toMatchObject({ bio: 'hello', name: 'Ann', phone: '+1' });
    expect(
      projectUser(view, stored({ type: 'UserDeleted', data: { userId: 'u1', deletedBy: 'a' } })),
    ).toBeNull();
  });

  it('keeps a referral document only for referred users, updated with name and photo', () => {
    expect(projectReferral(null, registered())).toBeNull();
    const doc = projectReferral(null, registered('ref-1'));
    expect(doc).toMatchObject({ id: 'u1', referrerId: 'ref-1', name: 'Ann', email: 'ann@example.com' });
    const renamed = projectReferral(
      doc,
      stored({
        type: 'ProfileUpdated',
        data: {
          userId: 'u1',
          fields: ['name', 'photo'],
          name: 'Anne',
          phone: '',
          bio: '',
          country: '',
          photo: 'https://p',
        },
      }),
    );
    expect(renamed).toMatchObject({ name: 'Anne', photo: 'https://p' });
  });

  it('(hook) applies KYC status and ledger balances from other services', () => {
    const view = projectUser(null, registered());
    const ext = (type: string, data: unknown) =>
      ({
        ...stored({ type: 'UserVerified', data: { userId: 'u1', verifiedAt: '' } }),
        type,
        data,
      }) as StoredEvent;
    const pending = projectExternalFact(
      view,
      ext('KycSubmitted', { userId: 'u1', frontDoc: 'f', backDoc: 'b' }),
    );
    expect(pending).toMatchObject({ kycStatus: 'Pending', kycFrontDoc: 'f', kycBackDoc: 'b' });
    expect(projectExternalFact(pending, ext('KycApproved', { userId: 'u1' }))?.kycStatus).toBe('Approved');
    expect(
      projectExternalFact(
        view,
        ext('BalancesChanged', { userId: 'u1', depositCents: 1050, investedCents: 0, profitCents: 7 }),
      ),
    ).toMatchObject({
      balanceCents: 1050,
      totalMaturityAmountCents: 7,
    });
  });
});
