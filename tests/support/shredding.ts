/** The crypto-shredding spec's person, documents, needles to search the data for, and the HTTP steps it takes. */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { testPng } from '@meridian/platform/testing/testImage';
import {
  HttpSession,
  linkWith,
  listMail,
  waitForMail,
  type Account,
} from '@meridian/gateway/testing/composition';

export const ADMIN = { email: 'shred-admin@example.com', password: 'Shred-Admin-Passw0rd!' };
export const PLANS_JSON = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 1_500 },
  { name: 'Bronze', minAmount: 500, maxAmount: 1500, ratePercent: 15, durationMs: 60 * 60_000 },
]);

/** The person who will be deleted: values that appear nowhere else by chance. */
// never six digits alone: the person's name is in every email to them, and a tag like "483920" (one run in
// 16 or so) was read as the sign-in code (loginCodeOf takes the first 6-digit word of the mail)
export const tag = `z${randomUUID().slice(0, 5)}`;
export const PERSON = {
  name: `Zebulon Quixotica-Marchbanks ${tag}`,
  email: `zebulon.quixotica.${tag}@shredtest.example`,
  phone: '+4915599887766',
  bio: `Collector of rare Marchbanks lighthouses ${tag}`,
  wallet: `0x5ec7e7dead${tag.replace(/[^0-9a-f]/g, '0')}c0ffee5bedc0de1234abcd98`.slice(0, 42),
  /**
   * The client address of every request of the person (documentation prefix 2001:db8::/32): personal data
   * too, in every service's event metadata (the Caller's address).
   */
  address: `2001:db8:5ec7:${tag.replace(/[^0-9a-f]/g, '0').slice(0, 4)}::be11`,
  password: 'Zebulon-Passw0rd!',
  /** What they write to support: as a visitor before signing up, then signed in. */
  chatAsVisitor: `Which lighthouse wallet takes my Marchbanks deposit ${tag}?`,
  chatSignedIn: `Thank you, Marchbanks keeper ${tag} will send the funds today`,
};
/** A real PNG (the kyc service checks its bytes and size) followed by the holder's name, as on a scanned document. */
export const PNG = Buffer.concat([testPng(), Buffer.from(`\nHOLDER: ${PERSON.name}\n`, 'utf8')]);
/** A screenshot of the person's bank transfer sent to support: their name on it, and in its file name. */
export const TRANSFER = Buffer.concat([testPng(640, 160), Buffer.from(`\nFROM: ${PERSON.name}\n`, 'utf8')]);

/** A support message carrying the transfer screenshot (multipart, as the chat's attach button sends it). */
export function transferForm(): FormData {
  const form = new FormData();
  form.set(
    'file',
    new Blob([new Uint8Array(TRANSFER)], { type: 'image/png' }),
    `${PERSON.name} transfer.png`,
  );
  return form;
}

/** Every byte sequence that would give one of the person's values away. */
export function needlesOf(values: Record<string, string>): Array<{ label: string; bytes: Buffer }> {
  const out: Array<{ label: string; bytes: Buffer }> = [];
  const add = (label: string, bytes: Buffer) => {
    if (!out.some((n) => n.bytes.equals(bytes))) out.push({ label, bytes });
  };
  for (const [field, value] of Object.entries(values)) {
    for (const [form, text] of [
      ['as typed', value],
      ['lower case', value.toLowerCase()],
      ['upper case', value.toUpperCase()],
    ] as const) {
      add(`${field} ${form} (utf-8)`, Buffer.from(text, 'utf8'));
      add(`${field} ${form} (utf-16)`, Buffer.from(text, 'utf16le'));
    }
  }
  const email = Buffer.from(values.email!, 'utf8');
  add('email URL-encoded', Buffer.from(encodeURIComponent(values.email!), 'utf8'));
  // base64 of the email wherever it starts in a longer text: the three alignments, without the edge characters
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift, 0x20), email]);
    for (const alphabet of ['base64', 'base64url'] as const) {
      const encoded = padded.toString(alphabet).replace(/=+$/, '');
      const inner = encoded.slice(shift === 0 ? 0 : Math.ceil((shift * 4) / 3), encoded.length - 2);
      add(`email base64 (${alphabet}, offset ${shift})`, Buffer.from(inner, 'utf8'));
    }
  }
  return out;
}

/** Every regular file under `dir` (recursively). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Where any needle occurs in any file under `dir`, as `file: label`. */
export function scan(dir: string, needles: ReturnType<typeof needlesOf>): { files: number; found: string[] } {
  const files = filesUnder(dir);
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const n of needles) if (bytes.includes(n.bytes)) found.push(`${relative(dir, file)}: ${n.label}`);
  }
  return { files: files.length, found };
}

/** Every event of a service's store (read through the store; closed afterwards). */
export async function eventsOf(dataDir: string, service: string): Promise<StoredEvent[]> {
  const store = createSqliteServiceStore(join(dataDir, `${service}.sqlite`));
  try {
    const all: StoredEvent[] = [];
    for (let after = 0; ;) {
      const page = await store.readAll(after, 1000);
      if (page.length === 0) return all;
      all.push(...page);
      after = page[page.length - 1].position;
    }
  } finally {
    await store.close();
  }
}

/** Every string inside a JSON-like value. */
export function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

export function ok<T extends { status: number; body: unknown }>(res: T, status = 200, what = ''): T {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** A browser of the person's: every request of it from the person's distinctive address. */
export const personsBrowser = (url: string) =>
  new HttpSession(url, { headers: { 'x-forwarded-for': PERSON.address } });

export async function register(
  url: string,
  person: typeof PERSON | { name: string; email: string; phone: string; password: string },
  browser = new HttpSession(url),
): Promise<Account> {
  const res = ok(
    await browser.post('/api/users/register', {
      name: person.name,
      email: person.email,
      password: person.password,
      phone: person.phone,
      country: 'Germany',
    }),
    201,
    'register',
  );
  const mail = await waitForMail(url, person.email, (m) => m.links.some((l) => l.includes('/verify/')));
  ok(await browser.patch(`/api/users/verifyUser/${linkWith(mail, '/verify/').token}`), 200, 'verify');
  return { email: person.email, password: person.password, id: res.body._id as string, browser };
}

export async function deposit(user: Account, admin: HttpSession, dollars: number): Promise<string> {
  const created = ok(await user.browser.post('/api/payments/create', { amount: dollars }), 201, 'deposit');
  const transactionId = created.body.transactionId as string;
  ok(
    await admin.patch('/api/payments/confirmPayment', { transactionId, status: 'Confirmed', notes: '' }),
    200,
    'confirm deposit',
  );
  return transactionId;
}

export async function balanceOf(user: Account): Promise<number> {
  return (ok(await user.browser.get('/api/users/getUser'), 200, 'getUser').body as { balance: number })
    .balance;
}

export const mailSubjects = async (url: string, to: string) =>
  (await listMail(url, to)).map((m) => m.subject);
