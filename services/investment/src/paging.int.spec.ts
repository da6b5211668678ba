/**
 * Keyset paging of the investment lists: the admin queue (oldest first) and a user's investment history
 * (newest first), through gRPC, against the real ledger (held-request testing/queueSpecs.ts).
 */
import { heldRequestPagingSpecs } from '@meridian/held-request/testing/queueSpecs';
import { QUEUE } from './testing/harness.js';

heldRequestPagingSpecs(QUEUE);
