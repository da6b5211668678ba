/**
 * The admin's balance edit the kill drills send by the hundred: sent until it is applied, with the same
 * Idempotency-Key on every try. A 5xx or a lost connection is tried again (the process behind it may be
 * dead); any other refusal fails the drill at once.
 */
import { randomUUID } from 'node:crypto';
import type { HttpSession } from '@meridian/gateway/testing/httpSession';
import { waitFor } from '@meridian/platform/testing/waitFor';

export interface BalanceEdit {
  user: { id: string };
  amount: number;
  key: string;
}

export async function editUntilApplied(
  admin: HttpSession,
  edit: BalanceEdit,
  onRetry: () => void,
  deadlineMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    let status = 0;
    try {
      const r = await admin.put(
        `/api/users/updateDepositBalance/${edit.user.id}`,
        { operation: 'add', amount: edit.amount },
        { headers: { 'idempotency-key': edit.key } },
      );
      status = r.status;
      if (status === 200) return;
      if (status < 500) throw new Error(`command refused: ${status} ${JSON.stringify(r.body)}`);
    } catch (err) {
      if ((err as Error).message.startsWith('command refused')) throw err;
    }
    if (Date.now() > deadline) throw new Error(`command ${edit.key} never succeeded (last ${status})`);
    onRetry();
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `count` edits of 1 to 5 dollars spread over `investors`, each with its own key, and each investor's sum. */
export function editsOver(
  investors: readonly { id: string }[],
  count: number,
  keyPrefix: string,
): { edits: BalanceEdit[]; expected: Map<string, number> } {
  const edits = Array.from({ length: count }, (_, i) => ({
    user: investors[i % investors.length],
    amount: (i % 5) + 1,
    key: `${keyPrefix}-${randomUUID()}`,
  }));
  const expected = new Map<string, number>();
  for (const e of edits) expected.set(e.user.id, (expected.get(e.user.id) ?? 0) + e.amount);
  return { edits, expected };
}

/**
 * Sends every edit at once (edit i through `sessionFor(i)`), runs `kill` once `killAfter` of them are
 * applied, and waits until every edit is applied: how many were applied when the kill came, and how many
 * tries the client repeated.
 */
export async function editsThroughKill(
  edits: readonly BalanceEdit[],
  sessionFor: (i: number) => HttpSession,
  kill: () => Promise<void>,
  killAfter = 20,
): Promise<{ doneAtKill: number; retried: number }> {
  let done = 0;
  let retried = 0;
  const all = Promise.all(
    edits.map(async (edit, i) => {
      await editUntilApplied(sessionFor(i), edit, () => retried++);
      done++;
    }),
  );
  await waitFor(() => done >= killAfter, {
    timeoutMs: 60_000,
    intervalMs: 100,
    message: 'some commands done',
  });
  await kill(); // SIGKILL mid-flow
  const doneAtKill = done;
  await all;
  return { doneAtKill, retried };
}
