/**
 * Session revocations out to every gateway instance: Redis pub/sub (instances in other processes) and a
 * process-wide in-memory channel (a gateway in this process, as in the standalone target). The contract:
 * @meridian/platform/sessionRevocations.
 */
import { Redis } from 'ioredis';
import type { Logger } from '@meridian/platform/logger';
import { inProcessRevocations, SESSION_REVOCATIONS_CHANNEL } from '@meridian/platform/sessionRevocations';
import type { SessionRevocationPublisher } from '../app/ports.js';

/** How long a revocation waits for Redis before it is logged and left to the gateways' cache ttl. */
const PUBLISH_TIMEOUT_MS = 1_000;

export function createSessionRevocationPublisher(options: {
  redisUrl?: string;
  logger: Logger;
}): SessionRevocationPublisher & { close(): Promise<void> } {
  const channel = inProcessRevocations();
  channel.publishers++;
  const redis = options.redisUrl
    ? new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 })
    : null;
  redis?.on('error', (err) => options.logger.warn({ err }, 'session revocations: redis error'));
  let closed = false;
  return {
    async publish(revocation) {
      for (const listener of channel.listeners) {
        try {
          listener(revocation);
        } catch (err) {
          options.logger.warn({ err }, 'session revocations: listener failed');
        }
      }
      if (!redis) return;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          redis.publish(SESSION_REVOCATIONS_CHANNEL, JSON.stringify(revocation)),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('publish timed out')), PUBLISH_TIMEOUT_MS);
          }),
        ]);
      } catch (err) {
        options.logger.error(
          { err },
          'session revocation not published; gateways drop it at their cache ttl',
        );
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      channel.publishers--;
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
