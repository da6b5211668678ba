/** The actor's client address on the bus (the audit trail's "from which address"). */
import { describe, expect, it } from 'vitest';
import { EventEnvelope } from '@meridian/proto/meridian/common/v1/common';
import type { StoredEvent } from '../eventSourcing/types.js';
import { decodeEnvelope, encodeEnvelope } from './eventEnvelope.js';

const event: StoredEvent = {
  id: '5c1d8f0e-2b7a-4f4e-9a55-0d3c6b1e7f20',
  type: 'RoleChanged',
  data: { userId: 'u1' },
  streamId: 'user-u1',
  version: 2,
  position: 7,
  occurredAt: '2030-01-01T00:00:00.000Z',
  correlationId: 'corr',
  causationId: null,
  actor: { userId: 'u1', role: 'subscriber', impersonatorId: 'admin-1', address: '203.0.113.7' },
};

describe('the actor address in the envelope', () => {
  it('travels with the actor', () => {
    const { value, encoding } = encodeEnvelope(event);
    expect(decodeEnvelope(value, encoding).actor).toEqual(event.actor);
  });

  it('is absent, not empty, on an event recorded without one, and on an envelope written before it existed', () => {
    const without = { ...event, actor: { userId: 'u1', role: 'admin' } };
    const { value, encoding } = encodeEnvelope(without);
    expect(decodeEnvelope(value, encoding).actor).toEqual({ userId: 'u1', role: 'admin' });

    // an old producer's bytes: the Actor message without field 4
    const old = EventEnvelope.encode({
      id: event.id,
      type: event.type,
      streamId: event.streamId,
      version: 2,
      position: 7,
      occurredAt: event.occurredAt,
      correlationId: 'corr',
      causationId: '',
      actor: { userId: 'u1', role: 'admin', impersonatorId: '' },
      payload: Buffer.from(JSON.stringify(event.data)),
    }).finish();
    const decoded = decodeEnvelope(old, 'json');
    expect(decoded.actor).toEqual({ userId: 'u1', role: 'admin' });
    expect(decoded.data).toEqual(event.data);
  });
});
