/**
 * meridian-verify: checks a Meridian account statement (`meridian-statement/1`, docs/statements.md) on its
 * own, with nothing but the file: every entry's hash recomputed from its contents, the chain of prevHash
 * links from the statement's opening link to its head, consecutive sequence numbers, and every account's
 * closing balance equal to its opening balance plus its postings in the statement.
 *
 * Browser-safe (no node: imports): SHA-256 is WebCrypto's (`globalThis.crypto.subtle`), or, where a page
 * is not a secure context and has no `crypto.subtle`, the small implementation below (same digest).
 *
 * The canonical encoding of an entry (what its hash is over) is UTF-8 JSON with the keys in this fixed order
 * and no whitespace: {"seq","transactionId","postedAt","reason","memo","postings":[{"accountId","amountCents"}],
 * "prevHash"}; hash = lowercase hex SHA-256 of that text.
 */

export const STATEMENT_FORMAT = 'meridian-statement/1';
/** The link before a user's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

export type Posting = { accountId: string; amountCents: number };

export type StatementEntry = {
  /** 1 for the user's first transaction, then +1 per transaction. */
  seq: number;
  transactionId: string;
  /** ISO-8601 */
  postedAt: string;
  reason: string;
  memo: string;
  /** The whole transaction's entries, in posted order (platform counterparts included). */
  postings: Posting[];
  /** The hash of the entry before (GENESIS_HASH before the first). */
  prevHash: string;
  hash: string;
};

/** What the hash of an entry covers: everything but the hash itself. */
export type ChainedEntry = Omit<StatementEntry, 'hash'>;

export type StatementAccount = {
  accountId: string;
  kind: string;
  openingCents: number;
  closingCents: number;
};

export type ChainLink = { seq: number; hash: string };

export type Statement = {
  format: typeof STATEMENT_FORMAT;
  userId: string;
  from: string;
  to: string;
  generatedAt: string;
  accounts: StatementAccount[];
  /** The link just before the period (seq 0 and GENESIS_HASH when the period starts at the first entry). */
  opening: ChainLink;
  entries: StatementEntry[];
  /** The last link of the period (equal to `opening` when it has no entries). */
  head: ChainLink;
};

export type VerifyResult = {
  intact: boolean;
  /** Human sentences; the first broken link first. */
  problems: string[];
  entries: number;
  head: string | null;
};

/** The text an entry's hash is computed over (see the module comment). */
export function canonicalEntry(entry: ChainedEntry): string {
  return JSON.stringify({
    seq: entry.seq,
    transactionId: entry.transactionId,
    postedAt: entry.postedAt,
    reason: entry.reason,
    memo: entry.memo,
    postings: entry.postings.map((p) => ({ accountId: p.accountId, amountCents: p.amountCents })),
    prevHash: entry.prevHash,
  });
}

/** Lowercase hex SHA-256 of `entry`'s canonical encoding. */
export async function entryHash(entry: ChainedEntry): Promise<string> {
  return sha256Hex(canonicalEntry(entry));
}

/** Lowercase hex SHA-256 of a text's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const subtle = (globalThis as { crypto?: { subtle?: SubtleLike } }).crypto?.subtle;
  const digest = subtle ? new Uint8Array(await subtle.digest('SHA-256', bytes)) : sha256(bytes);
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

type SubtleLike = { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> };

/** Cents as the statement shows them: 1,000.01, -5.00. */
export const DAY_MS = 86_400_000;

/**
 * A statement period's bound as an instant: an ISO-8601 date (`2026-11-01`: midnight UTC; as `to`, the last
 * millisecond of that day) or a date-time with a zone; null when `text` is neither. The gateway and the ledger
 * read `from` / `to` with it, so both mean the same period.
 */
export function parseStatementInstant(text: string, edge: 'from' | 'to'): Date | null {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) {
    const day = new Date(`${t}T00:00:00.000Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== t) return null;
    return edge === 'from' ? day : new Date(day.getTime() + DAY_MS - 1);
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(t)) return null;
  const at = new Date(t);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The default start of a statement: the first day of `now`'s month, UTC. */
export const statementMonthStart = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${whole}.${String(abs % 100).padStart(2, '0')}`;
}

const HEX64 = /^[0-9a-f]{64}$/;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isText = (v: unknown): v is string => typeof v === 'string';

/** Why `json` is not shaped as a statement (the first reasons found), or [] when it is. */
function shapeProblems(json: unknown): string[] {
  if (!isObject(json)) return ['The file is not a statement (expected a JSON object)'];
  const out: string[] = [];
  if (json.format !== STATEMENT_FORMAT)
    out.push(`Unknown format ${JSON.stringify(json.format)} (expected "${STATEMENT_FORMAT}")`);
  for (const key of ['userId', 'from', 'to', 'generatedAt'])
    if (!isText(json[key])) out.push(`"${key}" is missing or not text`);
  const link = (name: string, v: unknown) => {
    if (!isObject(v) || !isInt(v.seq) || v.seq < 0 || !isText(v.hash) || !HEX64.test(v.hash))
      out.push(`"${name}" must be {seq, hash} with a whole seq and a 64-hex-digit hash`);
  };
  link('opening', json.opening);
  link('head', json.head);
  if (!Array.isArray(json.accounts)) out.push('"accounts" must be a list');
  else
    json.accounts.forEach((a, i) => {
      if (!isObject(a) || !isText(a.accountId) || !isText(a.kind))
        out.push(`Account ${i + 1}: accountId and kind must be text`);
      else {
        if (!isInt(a.openingCents))
          out.push(`Account ${a.accountId}: openingCents must be a whole number of cents`);
        if (!isInt(a.closingCents))
          out.push(`Account ${a.accountId}: closingCents must be a whole number of cents`);
      }
    });
  if (!Array.isArray(json.entries)) out.push('"entries" must be a list');
  else
    json.entries.forEach((e, i) => {
      const n = `Entry ${i + 1}`;
      if (!isObject(e)) return void out.push(`${n}: not an object`);
      if (!isInt(e.seq)) out.push(`${n}: seq must be a whole number`);
      for (const key of ['transactionId', 'postedAt', 'reason', 'memo', 'prevHash', 'hash'])
        if (!isText(e[key])) out.push(`${n}: "${key}" is missing or not text`);
      if (!Array.isArray(e.postings)) return void out.push(`${n}: "postings" must be a list`);
      e.postings.forEach((p, j) => {
        if (!isObject(p) || !isText(p.accountId)) out.push(`${n}, posting ${j + 1}: accountId must be text`);
        else if (!isInt(p.amountCents))
          out.push(`${n}, posting ${j + 1} (${p.accountId}): amountCents must be a whole number of cents`);
      });
    });
  return out;
}

/**
 * Verifies a statement (the parsed JSON): intact when its shape is right, every entry's hash is the hash of
 * its contents, the entries link from `opening` to `head` with consecutive sequence numbers, every entry's
 * postings sum to zero, and every account's closing balance is its opening plus its postings.
 */
export async function verifyStatement(json: unknown): Promise<VerifyResult> {
  const shape = shapeProblems(json);
  if (shape.length > 0) {
    const entries = isObject(json) && Array.isArray(json.entries) ? json.entries.length : 0;
    return { intact: false, problems: shape, entries, head: null };
  }
  const s = json as Statement;
  const problems: string[] = [];

  // the chain, entry by entry: the first broken link is the first problem
  let prev: ChainLink = { seq: s.opening.seq, hash: s.opening.hash };
  for (const [i, e] of s.entries.entries()) {
    const expectedSeq = s.opening.seq + i + 1;
    const name = `Entry ${expectedSeq} (tx ${e.transactionId})`;
    if (e.seq !== expectedSeq) problems.push(`${name}: sequence number is ${e.seq}, expected ${expectedSeq}`);
    if (e.prevHash !== prev.hash)
      problems.push(`${name}: previous hash ${short(e.prevHash)} does not link to ${short(prev.hash)}`);
    if ((await entryHash(e)) !== e.hash) problems.push(`${name}: hash does not match its contents`);
    let sum = 0;
    for (const p of e.postings) sum += p.amountCents;
    if (sum !== 0) problems.push(`${name}: postings sum to ${formatCents(sum)}, not zero`);
    if (e.postedAt < s.from || e.postedAt > s.to)
      problems.push(`${name}: posted at ${e.postedAt}, outside the period ${s.from} – ${s.to}`);
    prev = { seq: e.seq, hash: e.hash };
  }
  if (s.head.seq !== prev.seq || s.head.hash !== prev.hash)
    problems.push(
      s.entries.length === 0
        ? `Chain head ${s.head.seq}/${short(s.head.hash)} is not the opening link ${prev.seq}/${short(prev.hash)} of a statement without entries`
        : `Chain head ${s.head.seq}/${short(s.head.hash)} is not the last entry ${prev.seq}/${short(prev.hash)}`,
    );

  // the balances: closing = opening + the account's postings in the period
  const moved = new Map<string, number>();
  for (const e of s.entries)
    for (const p of e.postings) moved.set(p.accountId, (moved.get(p.accountId) ?? 0) + p.amountCents);
  const listed = new Set<string>();
  for (const a of s.accounts) {
    listed.add(a.accountId);
    if (a.accountId !== `user:${s.userId}:${a.kind}`)
      problems.push(`Account ${a.accountId}: not the ${a.kind} account of user ${s.userId}`);
    const sum = moved.get(a.accountId) ?? 0;
    if (a.closingCents !== a.openingCents + sum)
      problems.push(
        `Account ${a.accountId}: closing balance ${formatCents(a.closingCents)} does not equal opening ${formatCents(a.openingCents)} plus entries ${formatCents(sum)}`,
      );
  }
  for (const accountId of moved.keys())
    if (accountId.startsWith(`user:${s.userId}:`) && !listed.has(accountId))
      problems.push(`Account ${accountId}: has postings but no opening and closing balance`);

  return {
    intact: problems.length === 0,
    problems,
    entries: s.entries.length,
    head: s.head.hash,
  };
}

const short = (hash: string) => (hash.length > 12 ? `${hash.slice(0, 12)}…` : hash || '(empty)');

// ---------------------------------------------------------------- SHA-256 without WebCrypto (FIPS 180-4)

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 of `data` (the fallback where `crypto.subtle` is absent). */
export function sha256(data: Uint8Array): Uint8Array {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const blocks = Math.ceil((data.length + 9) / 64);
  const buf = new Uint8Array(blocks * 64);
  buf.set(data);
  buf[data.length] = 0x80;
  const view = new DataView(buf.buffer);
  const bits = data.length * 8;
  view.setUint32(buf.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(buf.length - 4, bits >>> 0);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(b * 64 + t * 4);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
    }
    let [a, bb, c, d, e, f, g, hh] = h;
    for (let t = 0; t < 64; t++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a;
    h[1] += bb;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]);
  return out;
}
