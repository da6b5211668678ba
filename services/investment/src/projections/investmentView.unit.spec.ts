import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { InvestmentEvent } from '../domain/investment.js';
import { type InvestmentDoc, projectInvestment } from './investmentView.js';

let version = 0;
const stored = (e: InvestmentEvent): StoredEvent<InvestmentEvent> => ({
  id: `e${++version}`,
  type: e.type,
  data: e.data,
  streamId: 'investment-i1',
  version,
  position: version,
  occurredAt: `2026-01-01T00:00:0${version}.000Z`,
  correlationId: 'c',
  causationId: null,
  actor: null,
});

const base = { investmentId: 'i1', userId: 'u1', amountCents: 10_000 };
const requested: InvestmentEvent = {
  type: 'InvestmentSubmitted',
  data: {
    ...base,
    planName: 'Starter',
    rateBps: 1200,
    durationMs: 1000,
    requestedAt: '2026-01-01T00:00:00.000Z',
  },
};

const approval = {
  ...base,
  planName: 'Starter',
  maturityAmountCents: 11_200,
  startDate: '2026-01-01T00:00:00.000Z',
  endDate: '2026-01-01T00:00:01.000Z',
  approvedBy: 'a',
};

describe('investment read model', () => {
  it('marks the ledger call each event owes and lists only held requests', () => {
    version = 0;
    let doc: InvestmentDoc | null = projectInvestment(null, stored(requested));
    expect(doc).toMatchObject({
      status: 'pending',
      hold: 'awaiting',
      sync: 'hold',
      version: 1,
      listed: true,
    });
    doc = projectInvestment(doc, stored({ type: 'HoldPlaced', data: { ...base, placedAt: 'x' } }));
    expect(doc).toMatchObject({ hold: 'placed', sync: 'none', version: 2 });
    doc = projectInvestment(
      doc,
      stored({
        type: 'InvestmentApproved',
        data: approval,
      }),
    );
    expect(doc).toMatchObject({
      status: 'Active',
      sync: 'capture',
      maturityAmountCents: 11_200,
      endDate: '2026-01-01T00:00:01.000Z',
    });
    doc = projectInvestment(
      doc,
      stored({
        type: 'InvestmentMatured',
        data: {
          ...base,
          maturityAmountCents: 11_200,
          profitCents: 1_200,
          endDate: '2026-01-01T00:00:01.000Z',
          maturedAt: 'y',
        },
      }),
    );
    expect(doc).toMatchObject({ status: 'Ended', sync: 'settle', version: 4 });
  });

  it('a refused hold leaves the owner history and owes nothing', () => {
    version = 0;
    const doc = projectInvestment(
      projectInvestment(null, stored(requested)),
      stored({ type: 'HoldRefused', data: { ...base, reason: 'Insufficient balance', refusedAt: 'x' } }),
    );
    expect(doc).toMatchObject({
      status: 'Rejected',
      hold: 'refused',
      refusal: 'Insufficient balance',
      sync: 'none',
      listed: false,
    });
  });

  it('a rejection owes a release', () => {
    version = 0;
    let doc = projectInvestment(null, stored(requested));
    doc = projectInvestment(doc, stored({ type: 'HoldPlaced', data: { ...base, placedAt: 'x' } }));
    doc = projectInvestment(
      doc,
      stored({ type: 'InvestmentRejected', data: { ...base, rejectedBy: 'a', rejectedAt: 'z' } }),
    );
    expect(doc).toMatchObject({ status: 'Rejected', sync: 'release', listed: true });
  });

  it('carries the projected maturity amount from the request on, as the approval fixes it', () => {
    version = 0;
    let doc = projectInvestment(null, stored(requested));
    expect(doc).toMatchObject({ status: 'pending', maturityAmountCents: 11_200 }); // 10,000 + 12 %
    // the domain's rounding (half-up to the cent), the same as at the approval
    const odd = { ...requested.data, amountCents: 12_345, rateBps: 1500 };
    expect(projectInvestment(null, stored({ ...requested, data: odd }))?.maturityAmountCents).toBe(14_197);
    doc = projectInvestment(doc, stored({ type: 'HoldPlaced', data: { ...base, placedAt: 'x' } }));
    expect(doc?.maturityAmountCents).toBe(11_200);
    // recomputed at the approval: the approval's amount is the one that holds
    doc = projectInvestment(
      doc,
      stored({
        type: 'InvestmentApproved',
        data: { ...approval, maturityAmountCents: 11_201 },
      }),
    );
    expect(doc).toMatchObject({ status: 'Active', maturityAmountCents: 11_201 });
  });

  it('records who initiated a request its owner did not (an admin impersonating them), and nothing else', () => {
    version = 0;
    const byAdmin = { userId: 'u1', role: 'subscriber', impersonatorId: 'admin-7' };
    let doc = projectInvestment(null, { ...stored(requested), actor: byAdmin });
    expect(doc).toMatchObject({ userId: 'u1', initiatedBy: 'admin-7' });
    doc = projectInvestment(doc, {
      ...stored({ type: 'HoldPlaced', data: { ...base, placedAt: 'x' } }),
      actor: null,
    });
    expect(doc).toMatchObject({ hold: 'placed', initiatedBy: 'admin-7' });
    version = 0;
    const byOwner = projectInvestment(null, {
      ...stored(requested),
      actor: { userId: 'u1', role: 'subscriber' },
    });
    expect(byOwner).not.toHaveProperty('initiatedBy');
  });

  it('projects a stream stored before the request event was renamed (InvestmentRequested)', () => {
    const former = { ...requested, type: 'InvestmentRequested' } as unknown as InvestmentEvent;
    version = 0;
    const fromFormer = projectInvestment(null, stored(former));
    version = 0;
    expect(fromFormer).toEqual(projectInvestment(null, stored(requested)));
    expect(fromFormer).toMatchObject({ status: 'pending', hold: 'awaiting', sync: 'hold' });
  });
});
