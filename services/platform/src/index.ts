// @meridian/platform — the runtime kit every service stands on. See ../README.md.

// event sourcing vocabulary and errors
export * from './eventSourcing/types.js';
export * from './eventSourcing/errors.js';

// ports
export * from './ports/serviceStore.js';
export * from './ports/eventBus.js';
export * from './ports/keyValue.js';

// embedded adapters (the production ones — MongoDB, Kafka — are loaded lazily by createServiceRuntime,
// or imported directly from '@meridian/platform/adapters/serviceStore.mongo' / 'adapters/eventBus.kafka')
export { createSqliteServiceStore } from './adapters/serviceStore.sqlite.js';
export type { StoreOptions } from './adapters/storeShared.js';
export { createInProcEventBus, type InProcEventBusOptions } from './adapters/eventBus.inproc.js';
export { createMemoryKeyValueStore } from './adapters/keyValue.memory.js';
export { createRedisKeyValueStore, type RedisKeyValueOptions } from './adapters/keyValue.redis.js';
export type { KafkaEventBusOptions } from './adapters/eventBus.kafka.js';
export {
  codecsFrom,
  decodeEnvelope,
  encodeEnvelope,
  type EventCodec,
  type EventCodecs,
} from './adapters/eventEnvelope.js';
export type { MongoServiceStoreOptions } from './adapters/serviceStore.mongo.js';

// outbox and idempotent consumers
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './app/outboxRelay.js';
export { causedBy, subscribeIdempotent, type IdempotentSubscribeOptions } from './app/consumer.js';
export {
  createLease,
  LeaseLostError,
  LEASES,
  startLeaseKeeper,
  type Lease,
  type LeaseKeeper,
  type LeaseRecord,
  type LeaseSettings,
} from './app/lease.js';

// config, logging, runtime, metrics
export * from './config.js';
export * from './metrics.js';
export * from './logger.js';
export * from './runtime.js';

// gRPC helpers
export * from './grpc/index.js';

// crypto
export * from './crypto.js';
