import { describe, expect, it } from 'vitest';
import { parseLedgerConfig } from './config.js';

describe('ledger config', () => {
  it('relays its outbox on a thread of its own unless OUTBOX_RELAY=inline', () => {
    expect(parseLedgerConfig({}).OUTBOX_RELAY).toBe('thread');
    expect(parseLedgerConfig({ OUTBOX_RELAY: 'inline' }).OUTBOX_RELAY).toBe('inline');
  });
});
