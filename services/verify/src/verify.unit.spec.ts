import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from './cli.js';
import {
  type ChainedEntry,
  GENESIS_HASH,
  type Statement,
  canonicalEntry,
  entryHash,
  formatCents,
  sha256,
  sha256Hex,
  verifyStatement,
} from './index.js';

const USER = 'u-1';
const acct = (kind: string) => `user:${USER}:${kind}`;

/** A transaction moving `cents` from one account to another, posted at 10:00 UTC on `day`. */
const transfer = (
  transactionId: string,
  day: string,
  reason: string,
  from: string,
  to: string,
  cents: number,
  memo = '',
): Omit<ChainedEntry, 'seq' | 'prevHash'> => ({
  transactionId,
  postedAt: `${day}T10:00:00.000Z`,
  reason,
  memo,
  postings: [
    { accountId: from, amountCents: -cents },
    { accountId: to, amountCents: cents },
  ],
});

/** A statement of three transactions after two earlier ones (opening seq 2), built with the real hashes. */
async function sample(): Promise<Statement> {
  const bodies = [
    transfer('tx-3', '2026-11-02', 'deposit_confirmed', 'platform:cash', acct('deposit'), 100_001),
    transfer('tx-4', '2026-11-03', 'hold_placed', acct('deposit'), acct('investment_hold'), 50_000),
    transfer(
      'tx-5',
      '2026-11-04',
      'admin_adjustment',
      'platform:adjustment',
      acct('deposit'),
      500,
      'Goodwill "credit", ünïcode ✓',
    ),
  ];
  const opening = { seq: 2, hash: createHash('sha256').update('earlier').digest('hex') };
  let prev = opening;
  const entries = [];
  for (const body of bodies) {
    const chained = { ...body, seq: prev.seq + 1, prevHash: prev.hash };
    const hash = await entryHash(chained);
    entries.push({ ...chained, hash });
    prev = { seq: chained.seq, hash };
  }
  return {
    format: 'meridian-statement/1',
    userId: USER,
    from: '2026-11-01T00:00:00.000Z',
    to: '2026-11-30T23:59:59.999Z',
    generatedAt: '2026-11-30T23:59:59.999Z',
    accounts: [
      {
        accountId: acct('deposit'),
        kind: 'deposit',
        openingCents: 2_000,
        closingCents: 2_000 + 100_001 - 50_000 + 500,
      },
      { accountId: acct('invested'), kind: 'invested', openingCents: 0, closingCents: 0 },
      { accountId: acct('profit'), kind: 'profit', openingCents: 0, closingCents: 0 },
      { accountId: acct('withdrawal_hold'), kind: 'withdrawal_hold', openingCents: 0, closingCents: 0 },
      { accountId: acct('investment_hold'), kind: 'investment_hold', openingCents: 0, closingCents: 50_000 },
    ],
    opening,
    entries,
    head: prev,
  };
}

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('canonical encoding and hash', () => {
  it('is JSON with the keys in the fixed order and no whitespace; the hash is its SHA-256', async () => {
    const entry: ChainedEntry = {
      memo: 'm',
      prevHash: GENESIS_HASH,
      postings: [
        { amountCents: -1, accountId: 'platform:cash' },
        { amountCents: 1, accountId: 'user:u:deposit' },
      ],
      reason: 'deposit_confirmed',
      postedAt: '2026-01-01T00:00:00.000Z',
      transactionId: 't',
      seq: 1,
    };
    const text = canonicalEntry(entry);
    expect(text).toBe(
      `{"seq":1,"transactionId":"t","postedAt":"2026-01-01T00:00:00.000Z","reason":"deposit_confirmed","memo":"m",` +
        `"postings":[{"accountId":"platform:cash","amountCents":-1},{"accountId":"user:u:deposit","amountCents":1}],` +
        `"prevHash":"${GENESIS_HASH}"}`,
    );
    expect(await entryHash(entry)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('the fallback SHA-256 agrees with node:crypto (empty, one block, several blocks, non-ASCII)', async () => {
    for (const text of ['', 'abc', 'x'.repeat(55), 'y'.repeat(56), 'z'.repeat(64), 'é✓'.repeat(300)]) {
      const bytes = new TextEncoder().encode(text);
      const hex = Buffer.from(sha256(bytes)).toString('hex');
      expect(hex).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      expect(await sha256Hex(text)).toBe(hex);
    }
  });

  it('formats cents with thousands separators', () => {
    expect(formatCents(100_001)).toBe('1,000.01');
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(-505)).toBe('-5.05');
    expect(formatCents(123_456_789)).toBe('1,234,567.89');
  });
});

describe('verifyStatement', () => {
  it('an untouched statement is intact', async () => {
    const s = await sample();
    expect(await verifyStatement(s)).toEqual({
      intact: true,
      problems: [],
      entries: 3,
      head: s.entries[2].hash,
    });
  });

  it('a statement without entries is intact when its head is its opening link', async () => {
    const s = await sample();
    const empty = {
      ...s,
      entries: [],
      head: s.opening,
      accounts: s.accounts.map((a) => ({ ...a, closingCents: a.openingCents })),
    };
    expect((await verifyStatement(empty)).intact).toBe(true);
    expect((await verifyStatement({ ...empty, head: s.head })).intact).toBe(false);
  });

  it('one cent more in a posting breaks that entry first', async () => {
    const s = copy(await sample());
    s.entries[1].postings[1].amountCents += 1;
    const r = await verifyStatement(s);
    expect(r.intact).toBe(false);
    expect(r.problems[0]).toBe('Entry 4 (tx tx-4): hash does not match its contents');
  });

  it('one cent more on a closing balance fails with the sentence for it', async () => {
    const s = copy(await sample());
    s.accounts[0].closingCents += 1;
    const r = await verifyStatement(s);
    expect(r.intact).toBe(false);
    expect(r.problems).toEqual([
      `Account user:${USER}:deposit: closing balance 525.02 does not equal opening 20.00 plus entries 505.01`,
    ]);
  });

  it('a changed memo, reason or date breaks the hash', async () => {
    for (const change of [
      (s: Statement) => (s.entries[2].memo += ' '),
      (s: Statement) => (s.entries[0].reason = 'referral_bonus'),
      (s: Statement) => (s.entries[0].postedAt = '2026-11-02T10:00:00.001Z'),
      (s: Statement) => (s.entries[0].transactionId = 'tx-x'),
    ]) {
      const s = copy(await sample());
      change(s);
      const r = await verifyStatement(s);
      expect(r.intact).toBe(false);
      expect(r.problems[0]).toMatch(/hash does not match its contents/);
    }
  });

  it('reordered entries fail', async () => {
    const s = copy(await sample());
    [s.entries[0], s.entries[1]] = [s.entries[1], s.entries[0]];
    const r = await verifyStatement(s);
    expect(r.intact).toBe(false);
    expect(r.problems[0]).toBe('Entry 3 (tx tx-4): sequence number is 4, expected 3');
  });

  it('a removed entry fails, even with the balances recomputed to match', async () => {
    const s = copy(await sample());
    s.entries.splice(1, 1);
    s.accounts[0].closingCents += 50_000;
    s.accounts[4].closingCents = 0;
    const r = await verifyStatement(s);
    expect(r.intact).toBe(false);
    expect(r.problems[0]).toBe('Entry 4 (tx tx-5): sequence number is 5, expected 4');
    expect(r.problems[1]).toMatch(/^Entry 4 \(tx tx-5\): previous hash .* does not link to /);
  });

  it('a wrong prevHash fails even when the entry is re-hashed consistently', async () => {
    const s = copy(await sample());
    s.entries[1].prevHash = GENESIS_HASH;
    s.entries[1].hash = await entryHash(s.entries[1]);
    const r = await verifyStatement(s);
    expect(r.intact).toBe(false);
    expect(r.problems[0]).toMatch(/^Entry 4 \(tx tx-4\): previous hash 000000000000… does not link to /);
  });

  it('a head that is not the last entry fails', async () => {
    const s = copy(await sample());
    s.head = { seq: 4, hash: s.entries[1].hash };
    expect((await verifyStatement(s)).problems[0]).toMatch(/^Chain head 4\/.* is not the last entry 5\//);
  });

  it('amounts must be whole cents and the shape must be a statement', async () => {
    const s = copy(await sample()) as unknown as {
      entries: Array<{ postings: Array<{ amountCents: unknown }> }>;
    };
    s.entries[0].postings[0].amountCents = -1000.01;
    expect((await verifyStatement(s)).problems).toContain(
      'Entry 1, posting 1 (platform:cash): amountCents must be a whole number of cents',
    );
    const r = await verifyStatement([1, 2]);
    expect(r).toMatchObject({ intact: false, entries: 0, head: null });
    expect(r.problems[0]).toBe('The file is not a statement (expected a JSON object)');
  });
});

describe('meridian-verify (CLI)', () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) } };
  };
  const file = async (name: string, content: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'meridian-verify-'));
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it('exit 0 and the head when intact', async () => {
    const s = await sample();
    const { lines, out } = capture();
    expect(await run([await file('ok.json', JSON.stringify(s))], out)).toBe(0);
    expect(lines).toEqual([`Statement intact: 3 entries, chain head ${s.head.hash}`]);
  });

  it('exit 1 and the problems when one cent was altered', async () => {
    const s = copy(await sample());
    s.entries[0].postings[1].amountCents = 100_002;
    const { lines, out } = capture();
    expect(await run([await file('bad.json', JSON.stringify(s))], out)).toBe(1);
    expect(lines[0]).toBe('Statement NOT intact:');
    expect(lines[1]).toBe('- Entry 3 (tx tx-3): hash does not match its contents');
  });

  it('exit 2 on a missing file, a file that is not JSON, or no argument', async () => {
    const { lines, out } = capture();
    expect(await run([join(tmpdir(), 'no-such-statement.json')], out)).toBe(2);
    expect(await run([await file('junk.json', '{not json')], out)).toBe(2);
    expect(lines[1]).toMatch(/not valid JSON/);
    expect(await run([], out)).toBe(2);
  });
});

describe('bin/meridian-verify.js (the npx entry, a real process)', () => {
  it('exits 0 on an intact statement and 1 on an altered one', async () => {
    const { execFile } = await import('node:child_process');
    const bin = new URL('../bin/meridian-verify.js', import.meta.url).pathname;
    const exec = (path: string) =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [bin, path], (err, stdout) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout }),
        ),
      );
    const dir = await mkdtemp(join(tmpdir(), 'meridian-verify-bin-'));
    const s = await sample();
    await writeFile(join(dir, 'ok.json'), JSON.stringify(s));
    const ok = await exec(join(dir, 'ok.json'));
    expect(ok).toEqual({ code: 0, stdout: `Statement intact: 3 entries, chain head ${s.head.hash}\n` });
    const bad = copy(s);
    bad.accounts[4].closingCents -= 1;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const broken = await exec(join(dir, 'bad.json'));
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /^Statement NOT intact:\n- Account user:u-1:investment_hold: closing balance 499.99/,
    );
  });
});

describe('docs/statements.md: the Python re-implementation', () => {
  const docs = new URL('../../../docs/statements.md', import.meta.url).pathname;
  const python = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, 'python3'))
    .find((p) => existsSync(p));
  if (!python)
    console.log('verify.unit.spec: skipping the Python re-implementation check: no python3 on this machine');

  it('the worked example hashes are what entryHash computes', async () => {
    const text = await readFile(docs, 'utf8');
    const lines = [...text.matchAll(/^(\{"seq":.*\})\n {2}-> hash ([0-9a-f]{64})$/gm)];
    expect(lines).toHaveLength(2);
    for (const [, json, hash] of lines) expect(await entryHash(JSON.parse(json) as ChainedEntry)).toBe(hash);
  });

  it.runIf(python)('agrees with the verifier on an intact and an altered statement', async () => {
    const { execFile } = await import('node:child_process');
    const code = /```python\n([\s\S]*?)```/.exec(await readFile(docs, 'utf8'))?.[1];
    expect(code).toBeTruthy();
    const dir = await mkdtemp(join(tmpdir(), 'meridian-verify-py-'));
    await writeFile(join(dir, 'verify.py'), code!);
    const py = (file: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(python!, [join(dir, 'verify.py'), file], (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        ),
      );
    const s = await sample();
    await writeFile(join(dir, 'ok.json'), JSON.stringify(s));
    expect(await py(join(dir, 'ok.json'))).toBe('intact\n');
    const bad = copy(s);
    bad.entries[2].postings[0].amountCents -= 1;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    expect(await py(join(dir, 'bad.json'))).toBe('NOT intact\n');
  });
});
