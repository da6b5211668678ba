import { EventEnvelope } from '@meridian/proto/meridian/common/v1/common';
import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import * as investmentEvents from '@meridian/proto/meridian/investment/v1/events';
import * as kycEvents from '@meridian/proto/meridian/kyc/v1/events';
import * as ledgerEvents from '@meridian/proto/meridian/ledger/v1/events';
import * as notificationEvents from '@meridian/proto/meridian/notification/v1/events';
import * as supportEvents from '@meridian/proto/meridian/support/v1/events';
import * as withdrawalEvents from '@meridian/proto/meridian/withdrawal/v1/events';
import type { StoredEvent, TraceCarrier } from '../eventSourcing/types.js';

/** A ts-proto message's static functions (only what the bus needs). */
export interface EventCodec {
  encode(message: any): { finish(): Uint8Array };
  decode(bytes: Uint8Array): any;
  /** Preferred to build the message from the JSON-shaped data of a StoredEvent (ISO dates, numbers). */
  fromJSON?(object: any): any;
  fromPartial?(object: any): any;
}
/** Codec per event type (the proto message short name, e.g. 'UserRegistered'). */
export type EventCodecs = Record<string, EventCodec>;

export type PayloadEncoding = 'proto' | 'json';

/**
 * StoredEvent -> protobuf EventEnvelope bytes. The payload is the protobuf encoding of `data` when a
 * codec is registered for the type ('proto'), else UTF-8 JSON of `data` ('json'); the encoding travels
 * beside the value (a Kafka header).
 */
export function encodeEnvelope(
  e: StoredEvent,
  codecs: EventCodecs = {},
): { value: Buffer; encoding: PayloadEncoding } {
  const codec = codecs[e.type];
  let payload: Uint8Array;
  let encoding: PayloadEncoding;
  if (codec) {
    const message = codec.fromJSON
      ? codec.fromJSON(e.data)
      : codec.fromPartial
        ? codec.fromPartial(e.data)
        : e.data;
    payload = codec.encode(message).finish();
    encoding = 'proto';
  } else {
    payload = Buffer.from(JSON.stringify(e.data ?? null), 'utf8');
    encoding = 'json';
  }
  const envelope: EventEnvelope = {
    id: e.id,
    type: e.type,
    streamId: e.streamId,
    version: e.version,
    position: e.position,
    occurredAt: e.occurredAt,
    correlationId: e.correlationId,
    causationId: e.causationId ?? '',
    actor: e.actor
      ? {
          userId: e.actor.userId,
          role: e.actor.role,
          impersonatorId: e.actor.impersonatorId ?? '',
          ...(e.actor.address ? { address: e.actor.address } : {}),
        }
      : undefined,
    payload: Buffer.from(payload),
  };
  return { value: Buffer.from(EventEnvelope.encode(envelope).finish()), encoding };
}

/**
 * EventEnvelope bytes -> StoredEvent with JSON-shaped data (a decoded proto message goes through a
 * JSON round trip, so consumers see the same shapes as from the in-process bus). A 'proto' payload
 * without a codec yields data = null and calls onMissingCodec.
 */
export function decodeEnvelope(
  value: Uint8Array,
  encoding: string | undefined,
  codecs: EventCodecs = {},
  onMissingCodec?: (type: string) => void,
): StoredEvent {
  const env = EventEnvelope.decode(value);
  let data: unknown = null;
  if (encoding === 'json') data = JSON.parse(Buffer.from(env.payload).toString('utf8'));
  else {
    const codec = codecs[env.type];
    if (codec) data = JSON.parse(JSON.stringify(codec.decode(env.payload)));
    else onMissingCodec?.(env.type);
  }
  return {
    id: env.id,
    type: env.type,
    data,
    streamId: env.streamId,
    version: env.version,
    position: env.position,
    occurredAt: env.occurredAt,
    correlationId: env.correlationId,
    causationId: env.causationId || null,
    actor: env.actor
      ? {
          userId: env.actor.userId,
          role: env.actor.role,
          ...(env.actor.impersonatorId ? { impersonatorId: env.actor.impersonatorId } : {}),
          ...(env.actor.address ? { address: env.actor.address } : {}),
        }
      : null,
  };
}

/**
 * Codecs from ts-proto modules: every export with encode/decode functions, keyed by its name
 * (= the event type). `codecsFrom(identityEvents, ledgerEvents)` with `import * as identityEvents from
 * '@meridian/proto/meridian/identity/v1/events'`.
 */
export function codecsFrom(...modules: Array<Record<string, unknown>>): EventCodecs {
  const out: EventCodecs = {};
  for (const mod of modules) {
    for (const [name, value] of Object.entries(mod)) {
      const v = value as Partial<EventCodec> | null;
      if (v && typeof v === 'object' && typeof v.encode === 'function' && typeof v.decode === 'function') {
        out[name] = v as EventCodec;
      }
    }
  }
  return out;
}

/**
 * Every event message of proto/ (message names are unique across the services' events.proto). A consumer
 * decodes with these, so a payload its producer encoded as protobuf is never left undecoded.
 */
export const ALL_EVENT_CODECS: EventCodecs = codecsFrom(
  identityEvents,
  investmentEvents,
  kycEvents,
  ledgerEvents,
  notificationEvents,
  supportEvents,
  withdrawalEvents,
);

/**
 * The W3C trace context of an event as message headers (`traceparent`, `tracestate`): the envelope
 * itself stays as it is. Empty when the event carries none.
 */
export function traceHeaders(e: Pick<StoredEvent, 'trace'>): Record<string, string> {
  if (!e.trace) return {};
  return e.trace.tracestate
    ? { traceparent: e.trace.traceparent, tracestate: e.trace.tracestate }
    : { traceparent: e.trace.traceparent };
}

/** The trace context of a message from its headers (Kafka: Buffer, string or arrays of them), if any. */
export function traceFromHeaders(headers: Record<string, unknown> | undefined): TraceCarrier | undefined {
  const one = (v: unknown): string | undefined => {
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === 'string') return first;
    return Buffer.isBuffer(first) ? first.toString('utf8') : undefined;
  };
  const traceparent = one(headers?.traceparent);
  if (!traceparent) return undefined;
  const tracestate = one(headers?.tracestate);
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
