/**
 * The invariant check every fault drill ends with, read from the cluster's own stores and broker:
 * - every ledger transaction sums to zero, was posted once, and every shown ledger balance equals its
 *   account's entries (ledgerInvariantProblems);
 * - what identity shows each user (getUser) equals the ledger's balances for that user;
 * - every email was sent, none failed, and the mailbox holds each sent email exactly once;
 * - no event lost: every outbox is published to its checkpoint, every consumer group has consumed its topic
 *   to the end, and no dead-letter topic holds anything; none applied twice: the markers (and the checks above).
 */
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { expect } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { ledgerInvariantProblems } from '@meridian/ledger/testing/invariants';
import { HttpSession } from '@meridian/gateway/testing/httpSession';
import type { Account } from '@meridian/gateway/testing/composition';
import { SERVICES, type Cluster, type ServiceName } from '../../scripts/cluster/cluster.js';
import type { SpecAccount } from '../support/specJourney.js';

/** Opens a service's SQLite store beside its running process (WAL: readers do not block it). */
export async function withStore<T>(
  cluster: Cluster,
  service: ServiceName,
  fn: (store: ServiceStore) => Promise<T>,
): Promise<T> {
  const store = createSqliteServiceStore(join(cluster.dir, service, `${service}.sqlite`));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Every outbox published up to its last event. */
export async function outboxBacklogs(cluster: Cluster): Promise<string[]> {
  const behind: string[] = [];
  for (const service of SERVICES) {
    await withStore(cluster, service, async (store) => {
      const last = await store.lastPosition();
      const checkpoint = await store.getCheckpoint(`outbox:meridian.${service}.events`);
      if (checkpoint < last) behind.push(`${service} outbox at ${checkpoint} of ${last}`);
    });
  }
  return behind;
}

/** Consumer groups behind the end of their topic, and dead letters, from the broker. */
export async function busProblems(cluster: Cluster): Promise<string[]> {
  const kafka = new Kafka({
    clientId: 'drill-check',
    brokers: cluster.kafkaBrokers,
    sasl: cluster.kafkaSasl, // the cluster's admin: every group and topic
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const problems: string[] = [];
    const topics = (await admin.listTopics()).filter((t) => t.startsWith('meridian.'));
    const ends = new Map<string, Map<number, bigint>>();
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      ends.set(topic, new Map(offsets.map((o) => [o.partition, BigInt(o.high)])));
      if (topic.endsWith('.dlq')) {
        const n = offsets.reduce((sum, o) => sum + BigInt(o.high) - BigInt(o.low), 0n);
        if (n > 0n) problems.push(`${n} dead letter(s) in ${topic}`);
      }
    }
    const { groups } = await admin.listGroups();
    for (const { groupId } of groups) {
      const topic = topics.find((t) => !t.endsWith('.dlq') && groupId.endsWith(`.${t}`));
      if (!topic) continue;
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      for (const p of committed.partitions) {
        const end = ends.get(topic)?.get(p.partition) ?? 0n;
        const at = BigInt(p.offset === '-1' ? 0 : p.offset);
        if (at < end) problems.push(`${groupId} partition ${p.partition} at ${at} of ${end}`);
      }
    }
    return problems;
  } finally {
    await admin.disconnect();
  }
}

interface EmailDoc {
  id: string;
  to: string;
  template: string;
  status: string;
  lastError: string | null;
}

export async function emailProblems(cluster: Cluster): Promise<string[]> {
  return withStore(cluster, 'notification', async (store) => {
    const problems: string[] = [];
    const emails = await store.find<EmailDoc>('emails');
    for (const e of emails)
      if (e.status !== 'sent')
        problems.push(
          `email ${e.id} (${e.template} to ${e.to}) is ${e.status}${e.lastError ? `: ${e.lastError}` : ''}`,
        );
    const mailbox = await store.find<{ id: string }>('mailbox');
    const sent = emails.filter((e) => e.status === 'sent').length;
    if (mailbox.length !== sent)
      problems.push(`${mailbox.length} messages in the mailbox for ${sent} emails sent`);
    return problems;
  });
}

/** Balances identity shows (getUser) against the ledger's, for the given users. */
export async function balanceProblems(
  cluster: Cluster,
  users: Array<{ id: string; browser: HttpSession }>,
): Promise<string[]> {
  const ledger = await withStore(cluster, 'ledger', (store) => store.find<Record<string, any>>('balances'));
  const byUser = new Map(ledger.map((b) => [b.userId as string, b]));
  const problems: string[] = [];
  for (const u of users) {
    const res = await u.browser.get('/api/users/getUser');
    if (res.status !== 200) {
      problems.push(`getUser of ${u.id}: ${res.status}`);
      continue;
    }
    const b = byUser.get(u.id);
    const want = {
      balance: (b?.depositCents ?? 0) / 100,
      investmentBalance: (b?.investedCents ?? 0) / 100,
      totalMaturityAmount: (b?.profitCents ?? 0) / 100,
    };
    const shown = {
      balance: res.body.balance,
      investmentBalance: res.body.investmentBalance,
      totalMaturityAmount: res.body.totalMaturityAmount,
    };
    if (JSON.stringify(shown) !== JSON.stringify(want))
      problems.push(`user ${u.id} shown ${JSON.stringify(shown)}, ledger has ${JSON.stringify(want)}`);
  }
  return problems;
}

/** A spec-client account as the invariant check reads it: getUser with the account's cookies, on `url`. */
export function invariantAccount(url: string, { id, email, password, client }: SpecAccount): Account {
  const browser = new HttpSession(url);
  for (const [k, v] of client.cookies) browser.cookies.set(k, v);
  return { id, email, password, browser };
}

/** Waits (the system is eventually consistent) until every invariant holds, then asserts none is broken. */
export async function expectClusterInvariants(
  cluster: Cluster,
  users: Array<{ id: string; browser: HttpSession }>,
  timeoutMs = 90_000,
): Promise<void> {
  let last: string[] = [];
  try {
    await waitFor(
      async () => {
        last = [
          ...(await withStore(cluster, 'ledger', ledgerInvariantProblems)),
          ...(await outboxBacklogs(cluster)),
          ...(await busProblems(cluster)),
          ...(await emailProblems(cluster)),
          ...(await balanceProblems(cluster, users)),
        ];
        return last.length === 0;
      },
      { timeoutMs, intervalMs: 500, message: 'cluster invariants' },
    );
  } catch {
    // fall through to a readable failure
  }
  expect(last, `cluster invariants still broken after ${timeoutMs} ms: ${last.join('; ')}`).toEqual([]);
}
