/**
 * Admins deciding one request at the same time, as the investment and withdrawal integration specs check
 * it through the gRPC surface: the request's stream records one decision and the other admin is answered
 * ALREADY_EXISTS with a message naming the decision taken. Each kind's spec gives its own decide call (its
 * approve<Kind> / reject<Kind> by name) and checks its balances after.
 */
import { status } from '@grpc/grpc-js';
import { expect } from 'vitest';
import type { Decision } from '../app/heldRequests.js';

type Admin = { userId: string; role: string };

/**
 * Two admins approving `same` at once, then an approval and a rejection of `raced` at once: each time one
 * decision wins and the other is refused naming it (`messages`). Resolves to the decision `raced` got.
 */
export async function expectOneDecisionWins(race: {
  same: string;
  raced: string;
  admins: readonly [Admin, Admin];
  decide(decision: Decision, requestId: string, admin: Admin): Promise<unknown>;
  messages: { alreadyApproved: string; alreadyRejected: string };
}): Promise<Decision> {
  const [first, second] = race.admins;
  const settled = async (decisions: readonly [Decision, Decision], requestId: string) => {
    const results = await Promise.allSettled([
      race.decide(decisions[0], requestId, first),
      race.decide(decisions[1], requestId, second),
    ]);
    const won = results.findIndex((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toBeGreaterThanOrEqual(0);
    expect(lost).toHaveLength(1);
    const winner = decisions[won]!;
    expect(lost[0]!.reason).toMatchObject({
      code: status.ALREADY_EXISTS,
      details: winner === 'approve' ? race.messages.alreadyApproved : race.messages.alreadyRejected,
    });
    return winner;
  };
  expect(await settled(['approve', 'approve'], race.same)).toBe('approve');
  return settled(['approve', 'reject'], race.raced);
}
