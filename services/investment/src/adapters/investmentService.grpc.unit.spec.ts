/** The investment as the gRPC surface sends it: who initiated it, from its read model. */
import { describe, expect, it } from 'vitest';
import type { Actor, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { InvestmentEvent } from '../domain/investment.js';
import { projectInvestment } from '../projections/investmentView.js';
import { investmentToProto } from './investmentService.grpc.js';

const submitted = (actor: Actor): StoredEvent<InvestmentEvent> => ({
  id: 'e1',
  type: 'InvestmentSubmitted',
  data: {
    investmentId: 'i1',
    userId: 'u1',
    amountCents: 10_000,
    planName: 'Starter',
    rateBps: 1200,
    durationMs: 1000,
    requestedAt: '2026-01-01T00:00:00.000Z',
  },
  streamId: 'investment-i1',
  version: 1,
  position: 1,
  occurredAt: '2026-01-01T00:00:00.000Z',
  correlationId: 'c',
  causationId: null,
  actor,
});

const protoOf = (actor: Actor) =>
  investmentToProto({ ...projectInvestment(null, submitted(actor))!, userName: 'Ada', userEmail: 'a@x.io' });

describe('investmentToProto', () => {
  it('sends the impersonating admin who started an investment as initiatedBy, empty when the owner did', () => {
    expect(protoOf({ userId: 'u1', role: 'subscriber', impersonatorId: 'admin-7' })).toMatchObject({
      investmentId: 'i1',
      initiatedBy: 'admin-7',
    });
    expect(protoOf({ userId: 'u1', role: 'subscriber' }).initiatedBy).toBe('');
  });
});
