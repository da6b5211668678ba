/**
 * Withdrawal requests and decisions racing each other, and the ledger calls lost then completed by the process
 * manager, through the gRPC surface against the real ledger: the held-request race and fault specs
 * (@meridian/held-request testing/raceSpecs.ts) with the harness's kind.
 */
import { describe } from 'vitest';
import { heldRequestFaultSpecs, heldRequestRaceSpecs } from '@meridian/held-request/testing/raceSpecs';
import { RACE } from './testing/harness.js';

describe('races', () => heldRequestRaceSpecs(RACE));
describe('faults', () => heldRequestFaultSpecs(RACE));
