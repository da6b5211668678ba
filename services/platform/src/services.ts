/**
 * The platform's back-end services, in start order: each runs as its own process with its own store, its
 * own event topic (topicOf), its own Kafka user (busAccess.ts) and its own mesh certificate
 * (grpc/callers.ts, where the gateway joins them).
 */
export const SERVICES = [
  'identity',
  'notification',
  'ledger',
  'kyc',
  'investment',
  'withdrawal',
  'support',
] as const;
export type ServiceName = (typeof SERVICES)[number];
