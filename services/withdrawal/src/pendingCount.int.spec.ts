/**
 * The pending withdrawals counter, kept by the held-request projection in the command's transaction and
 * answered by CountPending without reading the queue, and the cap on one user's pending withdrawals
 * (held-request testing/queueSpecs.ts).
 */
import { heldRequestPendingSpecs } from '@meridian/held-request/testing/queueSpecs';
import { QUEUE } from './testing/harness.js';

heldRequestPendingSpecs(QUEUE);
