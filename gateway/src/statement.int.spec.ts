/**
 * GET /api/users/statement through the gateway and the real standalone composition: the JSON
 * statement verifies (and one altered cent does not), the CSV defuses formulas, the PDF carries the chain
 * head, bad queries are 400s that change nothing, an investor never gets another user's statement, an
 * impersonating admin gets the impersonated user's.
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { verifyStatement, type Statement } from 'meridian-verify';
import type { TestComposition } from './testing/composition.js';
import { HttpSession } from './testing/httpSession.js';
import { fundedInvestor } from './testing/money.js';
import { promotedAdmin } from './testing/routeCallers.js';
import { STATEMENT_MESSAGES } from './http/statementRoutes.js';
import { moneySpec } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
moneySpec((s) => void ({ t, admin } = s));

/** The raw answer (bytes and headers) of a GET with `browser`'s cookies. */
async function download(browser: HttpSession, path: string) {
  const res = await fetch(new URL(path, t.url), { headers: { cookie: browser.cookieHeader() } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const today = () => new Date().toISOString().slice(0, 10);
const thisMonth = () => `${today().slice(0, 8)}01`;

describe('GET api/users/statement', () => {
  it('json: the statement file, intact, and no longer intact with one cent changed', async () => {
    const investor = await fundedInvestor(t.url, admin, 1000);
    const adjusted = await admin.put(`/api/users/editDepositBalance/${investor.id}`, {
      amount: '0.01',
      reason: '=HYPERLINK("http://evil.example","click")',
    });
    expect(adjusted.status).toBe(200);

    const res = await download(investor.browser, '/api/users/statement');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="meridian-statement-${thisMonth()}-${today()}.json"`,
    );
    const s = JSON.parse(res.bytes.toString('utf8')) as Statement;
    expect(s).toMatchObject({ format: 'meridian-statement/1', userId: investor.id });
    expect(s.entries.map((e) => [e.seq, e.reason])).toEqual([
      [1, 'deposit_confirmed'],
      [2, 'admin_adjustment'],
    ]);
    expect(s.accounts.find((a) => a.kind === 'deposit')).toMatchObject({
      openingCents: 0,
      closingCents: 100_001,
    });
    expect(s.head).toEqual({ seq: 2, hash: s.entries[1].hash });
    expect(await verifyStatement(s)).toMatchObject({ intact: true, entries: 2, head: s.head.hash });

    const altered = JSON.parse(JSON.stringify(s)) as Statement;
    altered.entries[0].postings[1].amountCents += 1;
    const verdict = await verifyStatement(altered);
    expect(verdict.intact).toBe(false);
    expect(verdict.problems[0]).toBe(
      `Entry 1 (tx ${s.entries[0].transactionId}): hash does not match its contents`,
    );

    // a period before any posting: nothing in it, the chain at genesis
    const before = await investor.browser.get(
      '/api/users/statement?from=2020-01-01&to=2020-01-31&format=json',
    );
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ entries: [], opening: { seq: 0 }, head: { seq: 0 } });

    // csv: a row per ledger entry, text cells defused
    const csv = await download(investor.browser, '/api/users/statement?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/filename="meridian-statement-.*\.csv"/);
    const lines = csv.bytes.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('seq,postedAt,reason,memo,account,amount,hash');
    expect(lines).toHaveLength(1 + 4);
    expect(lines[1]).toBe(
      `1,${s.entries[0].postedAt},deposit_confirmed,,platform:cash,-1000.00,${s.entries[0].hash}`,
    );
    expect(lines[2]).toBe(
      `1,${s.entries[0].postedAt},deposit_confirmed,,user:${investor.id}:deposit,1000.00,${s.entries[0].hash}`,
    );
    expect(lines[4]).toContain(
      `,"'=HYPERLINK(""http://evil.example"",""click"")",user:${investor.id}:deposit,0.01,`,
    );

    // pdf: a PDF whose page text holds the chain head (Courier, so one hex run per line)
    const pdf = await download(investor.browser, '/api/users/statement?format=pdf');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(/filename="meridian-statement-.*\.pdf"/);
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const raw = pdf.bytes.toString('latin1');
    let pages = '';
    for (const m of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
      try {
        pages += inflateSync(Buffer.from(m[1], 'latin1')).toString('latin1');
      } catch {
        // not a deflated stream
      }
    }
    const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');
    expect(pages).toContain(hex(s.head.hash));
    expect(pages).toContain(hex('npx meridian-verify'));
  });

  it('bad queries are 400 with a clear message', async () => {
    const investor = await fundedInvestor(t.url, admin, 100);
    const cases: Array<[string, string]> = [
      ['from=yesterday', STATEMENT_MESSAGES.from],
      ['from=2026-02-30', STATEMENT_MESSAGES.from],
      ['to=2026-01-01T10:00', STATEMENT_MESSAGES.to],
      ['from=2026-02-01&to=2026-01-01', STATEMENT_MESSAGES.order],
      ['from=2024-01-01&to=2026-01-01', STATEMENT_MESSAGES.tooLong],
      ['format=xml', STATEMENT_MESSAGES.format],
      ['userId=../x', STATEMENT_MESSAGES.userId],
    ];
    for (const [query, message] of cases) {
      const res = await investor.browser.get(`/api/users/statement?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: { message },
      });
    }
    const ok = await investor.browser.get('/api/users/statement?from=2026-01-01T00:00:00Z&to=2026-06-30');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '2026-06-30T23:59:59.999Z' });
  });

  it("an investor cannot get another user's statement; an admin can; impersonation reads as the user", async () => {
    const investor = await fundedInvestor(t.url, admin, 100);
    const other = await fundedInvestor(t.url, admin, 200);
    const refused = await investor.browser.get(`/api/users/statement?userId=${other.id}`);
    expect(refused).toMatchObject({ status: 403, body: { message: 'Not authorized' } });
    expect((await new HttpSession(t.url).get('/api/users/statement')).status).toBe(401);

    const byAdmin = await admin.get(`/api/users/statement?userId=${other.id}`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ userId: other.id });
    expect(byAdmin.body.accounts[0]).toMatchObject({ kind: 'deposit', closingCents: 20_000 });

    const impersonator = await promotedAdmin(t.url, admin);
    expect((await impersonator.browser.post(`/api/users/impersonate/${investor.id}`)).status).toBe(200);
    const asInvestor = await impersonator.browser.get('/api/users/statement');
    expect(asInvestor.status).toBe(200);
    expect(asInvestor.body).toMatchObject({ userId: investor.id });
    expect(await verifyStatement(asInvestor.body)).toMatchObject({ intact: true, entries: 1 });
  });
});
