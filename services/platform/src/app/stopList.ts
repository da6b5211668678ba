/**
 * The stop half of a composition root: every part started pushes how to stop it; `stopAll` stops them
 * in reverse order, logging (not throwing) a failing stop, and empties the list so a second call does
 * nothing. Used when start() fails half-way and by the handle's stop().
 */
import type { Logger } from '../logger.js';

export interface StopList {
  push(stop: () => Promise<void>): void;
  stopAll(): Promise<void>;
}

export function createStopList(logger: Logger, service: string): StopList {
  const stops: Array<() => Promise<void>> = [];
  return {
    push: (stop) => void stops.push(stop),
    async stopAll() {
      for (const stop of stops.reverse()) {
        try {
          await stop();
        } catch (err) {
          logger.error({ err }, `error while stopping ${service}`);
        }
      }
      stops.length = 0;
    },
  };
}
