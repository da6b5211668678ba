/**
 * The ledger's operator metrics (prom-client through the platform's helpers), read at scrape time:
 * meridian_ledger_holds_open, the holds placed and not yet captured or released (money reserved for
 * pending investments and withdrawals: a number that only grows means decisions are not being made).
 */
import { metrics } from '@meridian/platform/metrics';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { openHoldsCount } from './streams.js';

const holdsOpen = metrics.sampledGauge(
  'meridian_ledger_holds_open',
  'Holds placed and not yet captured or released.',
  [],
);

/** Serves the gauges from this store; returns the function that stops serving them. */
export const serveLedgerMetrics = (store: StoreReads): (() => void) =>
  holdsOpen.add(async () => [{ labels: {}, value: await openHoldsCount(store) }]);
