import { describe, expect, it } from 'vitest';
import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import { EventEnvelope } from '@meridian/proto/meridian/common/v1/common';
import type { StoredEvent } from '../eventSourcing/types.js';
import { codecsFrom, decodeEnvelope, encodeEnvelope } from './eventEnvelope.js';
import { USER_REGISTERED } from '../testing/identityEvents.js';

const base: Omit<StoredEvent, 'type' | 'data'> = {
  id: '0b8a6c1e-7f43-4a38-9d1e-5b0c2f1d9a11',
  streamId: 'user-1',
  version: 3,
  position: 42,
  occurredAt: '2030-01-01T00:00:00.000Z',
  correlationId: 'corr',
  causationId: 'cause',
  actor: { userId: 'admin-1', role: 'admin', impersonatorId: 'boss' },
};

describe('event envelope (Kafka payload)', () => {
  const codecs = codecsFrom(identityEvents);

  it('collects codecs from ts-proto modules by message name', () => {
    expect(Object.keys(codecs)).toContain('UserRegistered');
    expect(Object.keys(codecs)).not.toContain('protobufPackage');
  });

  it('round-trips a proto-coded event: protobuf envelope, protobuf payload, JSON-shaped data', () => {
    const data = USER_REGISTERED;
    const event: StoredEvent = { ...base, type: 'UserRegistered', data };
    const { value, encoding } = encodeEnvelope(event, codecs);
    expect(encoding).toBe('proto');
    const env = EventEnvelope.decode(value);
    expect(env.type).toBe('UserRegistered');
    expect(identityEvents.UserRegistered.decode(env.payload)).toEqual(data);
    expect(decodeEnvelope(value, encoding, codecs)).toEqual(event);
  });

  it('falls back to JSON payload for types without a codec; null data (reported) when the reader lacks the codec', () => {
    const event: StoredEvent = {
      ...base,
      type: 'SomethingPrivate',
      data: { cents: 1234, nested: { a: [1, 2] } },
      causationId: null,
      actor: null,
    };
    const { value, encoding } = encodeEnvelope(event, codecs);
    expect(encoding).toBe('json');
    expect(decodeEnvelope(value, encoding)).toEqual(event);

    const proto = encodeEnvelope({ ...base, type: 'UserVerified', data: { userId: 'u1' } }, codecs);
    const missing: string[] = [];
    expect(decodeEnvelope(proto.value, proto.encoding, {}, (t) => missing.push(t)).data).toBeNull();
    expect(missing).toEqual(['UserVerified']);
  });
});
