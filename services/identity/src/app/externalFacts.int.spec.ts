/**
 * kycStatus and the document links on the user view, from the kyc service's events on
 * meridian.kyc.events (group 'identity'), applied once per event even when delivered again.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { identityPerTest } from '../testing/harness.js';
import { KYC_TOPIC } from '../projections/externalFacts.js';

const h = identityPerTest();

let position = 0;
const kycEvent = (type: string, data: Record<string, unknown>) =>
  busEvent(`kyc-${String(data.userId)}`, ++position, data, type);

describe('kyc facts on the user view', () => {
  it('shows Pending with the document links, then the decision, and ignores a redelivered event', async () => {
    const res = await h.register();
    const userId = res.user!.id;
    const caller = await h.callerOf(res.sessionToken);
    const view = () => h.call('getUser', { caller });
    expect(await view()).toMatchObject({ kycStatus: 'Not Submitted', kycFrontDoc: '', kycBackDoc: '' });

    const submitted = kycEvent('KycSubmitted', {
      userId,
      name: 'Test User',
      email: res.email,
      submittedAt: new Date().toISOString(),
      frontDoc: `/api/users/kyc/document/${userId}/front`,
      backDoc: `/api/users/kyc/document/${userId}/back`,
      submissionId: randomUUID(),
    });
    await h.bus.publish(KYC_TOPIC, [submitted]);
    await waitFor(async () => (await view()).kycStatus === 'Pending', 'kycStatus Pending');
    expect(await view()).toMatchObject({
      kycFrontDoc: `/api/users/kyc/document/${userId}/front`,
      kycBackDoc: `/api/users/kyc/document/${userId}/back`,
    });

    await h.bus.publish(KYC_TOPIC, [
      kycEvent('KycRejected', { userId, reason: 'Blurry', rejectedBy: 'admin' }),
    ]);
    await waitFor(async () => (await view()).kycStatus === 'Rejected', 'kycStatus Rejected');

    // The same KycSubmitted again (at-least-once delivery): no second effect, the case stays Rejected.
    // A later event for another user shows the consumer got past the redelivered one (one ordered log).
    const other = await h.register();
    const otherCaller = await h.callerOf(other.sessionToken);
    const marker = kycEvent('KycApproved', { userId: other.user!.id });
    await h.bus.publish(KYC_TOPIC, [submitted, marker]);
    await waitFor(async () => (await h.call('getUser', { caller: otherCaller })).kycStatus === 'Approved');
    expect((await view()).kycStatus).toBe('Rejected');
    // An event for a user identity does not know changes nothing and does not block the consumer.
    await h.bus.publish(KYC_TOPIC, [
      kycEvent('KycSubmitted', { userId: 'no-such-user', frontDoc: 'x', backDoc: 'y' }),
    ]);

    await h.bus.publish(KYC_TOPIC, [kycEvent('KycApproved', { userId, approvedBy: 'admin' })]);
    await waitFor(async () => (await view()).kycStatus === 'Approved', 'kycStatus Approved');
  });
});
