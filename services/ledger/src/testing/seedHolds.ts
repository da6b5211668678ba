/**
 * Investments as the ledger holds them once approved, written through its command path (tests and the
 * maturity bench): each investor funded by one deposit of exactly what their investments take, each
 * investment's hold placed and captured. A thousand commands to a transaction.
 */
import { randomUUID } from 'node:crypto';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { Cents } from '@meridian/platform/money/money';
import { handleCommand } from '@meridian/platform/app/commandHandler';
import { LEDGER_STREAM } from '../app/streams.js';

const PER_TX = 1_000;

export async function seedCapturedHolds(
  store: ServiceStore,
  holds: ReadonlyArray<{ userId: string; holdId: string }>,
  amountCents: Cents,
  correlationId = `seed-${randomUUID()}`,
): Promise<void> {
  const meta = { correlationId };
  const now = new Date();
  const perUser = new Map<string, number>();
  for (const { userId } of holds) perUser.set(userId, (perUser.get(userId) ?? 0) + 1);
  const users = [...perUser];
  for (let at = 0; at < users.length; at += PER_TX)
    await store.transaction(async (tx) => {
      for (const [userId, n] of users.slice(at, at + PER_TX))
        await handleCommand(
          tx,
          LEDGER_STREAM,
          userId,
          {
            type: 'CreditDeposit',
            userId,
            depositId: `dep-${userId}`,
            amountCents: n * amountCents,
            idempotencyKey: `deposit:dep-${userId}`,
            transactionId: randomUUID(),
            now,
          },
          meta,
        );
    });
  for (let at = 0; at < holds.length; at += PER_TX)
    await store.transaction(async (tx) => {
      for (const { userId, holdId } of holds.slice(at, at + PER_TX)) {
        await handleCommand(
          tx,
          LEDGER_STREAM,
          userId,
          {
            type: 'PlaceHold',
            userId,
            holdId,
            purpose: 'investment',
            amountCents,
            idempotencyKey: holdId,
            transactionId: randomUUID(),
            now,
          },
          meta,
        );
        await handleCommand(
          tx,
          LEDGER_STREAM,
          userId,
          {
            type: 'CaptureHold',
            userId,
            holdId,
            idempotencyKey: `capture:${holdId}`,
            transactionId: randomUUID(),
            now,
          },
          meta,
        );
      }
    });
}
