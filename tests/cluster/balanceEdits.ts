/**
 * The admin's balance edit the kill drills send by the hundred: sent until it is applied, with the same
 * Idempotency-Key on every try. A 5xx or a lost connection is tried again (the process behind it may be
 * dead); any other refusal fails the drill at once.
 */
import type { HttpSession } from '@meridian/gateway/testing/httpSession';

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
      const r = await admin.request('PUT', `/api/users/updateDepositBalance/${edit.user.id}`, {
        body: { operation: 'add', amount: edit.amount },
        headers: { 'idempotency-key': edit.key },
      });
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
