/**
 * Session revocations in from identity (the contract: @meridian/platform/sessionRevocations): Redis pub/sub when the gateway has REDIS_URL, and the process-wide in-memory channel an
 * identity service in this process publishes on. The feed is `live` only while a revocation sent now is
 * certain to arrive: subscribed to Redis and connected, or an identity service running in this process.
 * The session cache (http/sessionCache.ts) caches nothing while the feed is not live and forgets
 * everything when it stops being live (messages may have been lost).
 */
import { Redis } from 'ioredis';
import {
  inProcessRevocations,
  parseRevocation,
  SESSION_REVOCATIONS_CHANNEL,
  type SessionRevocation,
} from '@meridian/platform/sessionRevocations';
import type { GatewayLogger } from './logger.js';

export type { SessionRevocation };
/** startGateway does not wait longer for Redis: the feed turns live when the subscription is confirmed. */
const SUBSCRIBE_TIMEOUT_MS = 2_000;

export interface RevocationFeed {
  live(): boolean;
  /** Every revocation, and `lost` whenever the feed may have missed some. Returns the unsubscribe. */
  subscribe(handlers: { revoked(r: SessionRevocation): void; lost(): void }): () => void;
  close(): Promise<void>;
}

/** The feed; resolves once subscribed to Redis (or at once without redisUrl). */
export async function createRevocationFeed(options: {
  redisUrl?: string;
  logger: GatewayLogger;
}): Promise<RevocationFeed> {
  const channel = inProcessRevocations();
  const handlers = new Set<{ revoked(r: SessionRevocation): void; lost(): void }>();
  const revoked = (r: SessionRevocation) => {
    for (const h of handlers) h.revoked(r);
  };
  const lost = () => {
    for (const h of handlers) h.lost();
  };
  channel.listeners.add(revoked);
  let inProcessLive = channel.publishers > 0;

  let redisLive = false;
  let redis: Redis | null = null;
  if (options.redisUrl) {
    const sub = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    redis = sub;
    sub.on('error', (err) => options.logger.warn({ err }, 'session revocations: redis error'));
    sub.on('message', (ch: string, message: string) => {
      if (ch !== SESSION_REVOCATIONS_CHANNEL) return;
      let parsed: SessionRevocation | null = null;
      try {
        parsed = parseRevocation(JSON.parse(message));
      } catch {
        parsed = null;
      }
      if (parsed) revoked(parsed);
      else options.logger.warn({ message: message.slice(0, 200) }, 'session revocations: unreadable message');
    });
    const down = () => {
      if (!redisLive) return;
      redisLive = false;
      lost();
    };
    sub.on('close', down);
    sub.on('end', down);
    sub.on('reconnecting', down);
    // ioredis subscribes again after a reconnect; live once the subscription is confirmed
    sub.on('ready', () => {
      if (redisLive) return;
      sub.subscribe(SESSION_REVOCATIONS_CHANNEL).then(
        () => {
          if (sub.status === 'ready') redisLive = true;
        },
        (err: unknown) => options.logger.warn({ err }, 'session revocations: subscribe failed'),
      );
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sub.subscribe(SESSION_REVOCATIONS_CHANNEL),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer from Redis')), SUBSCRIBE_TIMEOUT_MS);
        }),
      ]);
      redisLive = sub.status === 'ready';
    } catch (err) {
      options.logger.warn({ err }, 'session revocations: not subscribed yet (principals are not cached)');
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    live() {
      const nowInProcess = channel.publishers > 0;
      if (inProcessLive && !nowInProcess && !redisLive) lost();
      inProcessLive = nowInProcess;
      return redisLive || nowInProcess;
    },
    subscribe(h) {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    async close() {
      channel.listeners.delete(revoked);
      redisLive = false;
      lost();
      handlers.clear();
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
