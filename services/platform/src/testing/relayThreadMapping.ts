/**
 * The integration mapping the relay-thread spec (app/relayThread.int.spec.ts) has its thread import: a
 * `Secret` event stays private, every other is published as `Public<type>` with its data.
 */
import type { IntegrationMapping } from '../app/integrationEvents.js';

export const testMapping: IntegrationMapping = (stored) =>
  stored.type === 'Secret' ? null : { type: `Public${stored.type}`, data: stored.data };
