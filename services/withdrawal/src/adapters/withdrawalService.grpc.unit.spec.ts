/** The withdrawal as the gRPC surface sends it: who initiated it, from its read model. */
import { describe, expect, it } from 'vitest';
import type { Actor, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { WithdrawalEvent } from '../domain/withdrawal.js';
import { withdrawalView } from '../projections/withdrawalView.js';
import { withdrawalToProto } from './withdrawalService.grpc.js';

const wallet = '0x' + 'a'.repeat(40);
const stored = { id: 'e1', streamId: 'withdrawal-w1', version: 1, position: 1, causationId: null };
const request = { withdrawalId: 'w1', userId: 'u1', amountCents: 10_000, walletAddress: wallet };

describe('withdrawalToProto', () => {
  const cases: Array<[Actor, string]> = [
    [{ userId: 'u1', role: 'subscriber', impersonatorId: 'admin-7' }, 'admin-7'],
    [{ userId: 'u1', role: 'subscriber' }, ''],
  ];
  it.each(cases)('sends who requested it when not its owner (%o): "%s"', (actor, initiatedBy) => {
    const event: StoredEvent<WithdrawalEvent> = {
      ...stored,
      type: 'WithdrawalSubmitted',
      data: { ...request, network: 'evm', requestDate: '2026-01-01T00:00:00.000Z' },
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'c',
      actor,
    };
    const doc = withdrawalView.project(null, event)!;
    const proto = withdrawalToProto({ ...doc, userName: 'Ada', userEmail: 'a@x.io' });
    expect(proto).toMatchObject({ withdrawalId: 'w1', userId: 'u1', initiatedBy });
  });
});
