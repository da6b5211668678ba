/**
 * The deposit read model keeps who created a deposit when it was not its owner (an admin impersonating
 * them, from the first event's actor), and the gRPC surface sends it.
 */
import { describe, expect, it } from 'vitest';
import type { Actor, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { DepositEvent } from '../domain/deposit.js';
import { depositToProto } from '../adapters/ledgerService.grpc.js';
import { projectDeposit } from './views.js';

const deposit = { depositId: 'd1', userId: 'u1', amountCents: 5_000 };
const stored = (e: DepositEvent, version: number, actor: Actor | null): StoredEvent<DepositEvent> => ({
  ...e,
  id: `e${version}`,
  streamId: 'deposit-d1',
  version,
  position: 10 + version,
  occurredAt: '2026-01-01T00:00:00.000Z',
  correlationId: 'c',
  causationId: null,
  actor,
});
const requested: DepositEvent = {
  type: 'DepositRequested',
  data: { ...deposit, requestedAt: '2026-01-01T00:00:00.000Z' },
};
const confirmed: DepositEvent = {
  type: 'DepositConfirmed',
  data: { ...deposit, notes: '', confirmedBy: 'admin-9', confirmedAt: '2026-01-01T00:01:00.000Z' },
};
const admin9: Actor = { userId: 'admin-9', role: 'admin' };

describe('projectDeposit: initiatedBy', () => {
  it('records the impersonating admin from the request, keeps it through the decision, and the proto sends it', () => {
    const byAdmin = { userId: 'u1', role: 'subscriber', impersonatorId: 'admin-7' };
    let doc = projectDeposit(null, stored(requested, 1, byAdmin));
    expect(doc).toMatchObject({ status: 'Pending', initiatedBy: 'admin-7', position: 11 });
    doc = projectDeposit(doc, stored(confirmed, 2, admin9));
    expect(doc).toMatchObject({ status: 'Confirmed', initiatedBy: 'admin-7', position: 11 });
    expect(depositToProto({ ...doc!, userName: 'Ada', userEmail: 'a@x.io' })).toMatchObject({
      depositId: 'd1',
      initiatedBy: 'admin-7',
    });
  });

  it('has none when the owner created it (or the event has no actor), and the proto sends empty', () => {
    for (const actor of [{ userId: 'u1', role: 'subscriber' }, null]) {
      const doc = projectDeposit(
        projectDeposit(null, stored(requested, 1, actor)),
        stored(confirmed, 2, admin9),
      );
      expect(doc).not.toHaveProperty('initiatedBy');
      expect(depositToProto({ ...doc!, userName: 'Ada', userEmail: 'a@x.io' }).initiatedBy).toBe('');
    }
  });
});
