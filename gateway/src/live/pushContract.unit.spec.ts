/** The push contract is one file, the gateway's; the SPA re-exports it (pushContract.ts says why). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pushesForKycEvent } from './kycPushes.js';
import { pushesForMoneyEvent } from './moneyPushes.js';
import { LIVE_EVENTS } from './pushContract.js';

const read = (rel: string) => readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8');

describe('the live-push contract shared by the gateway and the SPA', () => {
  it('web/src/features/live/pushContract.ts re-exports this file and defines nothing of its own', () => {
    const spa = read('../../../web/src/features/live/pushContract.ts');
    expect(spa.replace(/\/\*\*[\s\S]*?\*\/\n/, '')).toBe("export * from '#push-contract';\n");
  });

  it('imports nothing, so it means the same on both sides', () => {
    expect(read('./pushContract.ts')).not.toMatch(/^\s*import\b|\brequire\(|^\s*export .* from /m);
  });

  it('every push the gateway builds is named in the contract', () => {
    const names: string[] = Object.values(LIVE_EVENTS);
    const pushes = [
      ...pushesForKycEvent({ type: 'KycSubmitted', data: { userId: 'u1', name: 'A', email: 'a@x.io' } }),
      ...pushesForKycEvent({ type: 'KycApproved', data: { userId: 'u1' } }),
      ...pushesForMoneyEvent({
        type: 'DepositRequested',
        data: { userId: 'u1', depositId: 'd1', amountCents: 100 },
      }),
      ...pushesForMoneyEvent({ type: 'DepositConfirmed', data: { userId: 'u1', depositId: 'd1' } }),
      ...pushesForMoneyEvent({ type: 'BalancesChanged', data: { userId: 'u1', depositCents: 100 } }),
      ...pushesForMoneyEvent({ type: 'InvestmentMatured', data: { userId: 'u1', investmentId: 'i1' } }),
    ];
    expect(new Set(pushes.map((p) => p.event))).toEqual(
      new Set([
        LIVE_EVENTS.queueItemAdded,
        LIVE_EVENTS.queueItemDecided,
        LIVE_EVENTS.statusChanged,
        LIVE_EVENTS.balancesChanged,
      ]),
    );
    for (const p of pushes) expect(names).toContain(p.event);
  });
});
