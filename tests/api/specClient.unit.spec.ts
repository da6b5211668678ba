/**
 * The spec-only client (../support/specClient.ts) sends the calls of spec §7 and nothing else: a route the
 * spec does not name throws before anything reaches the network; its CSRF habit is the spec's defaults.
 */
import { describe, expect, it } from 'vitest';
import { NotASpecCall, SpecClient, isSpecCall, type SpecFetch } from '../support/specClient.js';

/** A fetch that records what it is asked and answers like the gateway: the CSRF cookie, then JSON. */
function recordingFetch() {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const fetch: SpecFetch = async (url, init) => {
    sent.push({ url, init });
    return new Response(JSON.stringify(false), {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'set-cookie': 'XSRF-TOKEN=abc%3D123; Path=/; SameSite=Lax',
      },
    });
  };
  return { sent, fetch };
}

/** The calls of spec §7. */
const SPEC_CALLS: Array<[string, string]> = [
  ['POST', '/api/users/register'],
  ['PATCH', '/api/users/verifyUser/abc123'],
  ['POST', '/api/users/sendLoginCode/a%40b.example'],
  ['POST', '/api/users/loginWithCode/a%40b.example'],
  ['DELETE', '/api/users/u1'],
  ['POST', '/api/users/impersonate/u1'],
  ['POST', '/api/users/exit-impersonation'],
  ['POST', '/api/payments/create'],
  ['PATCH', '/api/payments/confirmPayment'],
  ['GET', '/api/payments/pending-deposit'],
  ['POST', '/api/invest/start-invest'],
  ['PUT', '/api/invest/i1/approve'],
  ['GET', '/api/invest/adminPendingInvestment'],
  ['GET', '/api/invest/getTransactionHistory'],
  ['POST', '/api/withDraw/create'],
  ['PUT', '/api/withDraw/approve/w1'],
  ['GET', '/api/withDraw/pending'],
  ['POST', '/api/users/uploadKycDocuments'],
  ['GET', '/api/users/kyc/pending'],
  ['PATCH', '/api/users/kyc/approve/u1'],
  ['GET', '/api/users/referrals'],
  ['GET', '/api/countries'],
];

/** What the spec does not name: our own routes, other methods, query strings, dot segments. */
const NOT_SPEC_CALLS: Array<[string, string]> = [
  ['POST', '/api/admin/claims'],
  ['GET', '/api/admin/claims'],
  ['POST', '/api/admin/claims/deposit/d1/takeover'],
  ['GET', '/api/dev/mailbox'],
  ['GET', '/api/withDraw/balance'],
  ['GET', '/api/invest/investment/i1'],
  ['GET', '/api/users/getUsers?id=u1'],
  ['GET', '/api/users/statement'],
  ['GET', '/api/admin/audit'],
  ['PATCH', '/api/invest/i1/approve'],
  ['PUT', '/api/users/kyc/approve/u1'],
  ['PATCH', '/api/users/verifyUser/..'],
  ['DELETE', '/api/users/..'],
  ['GET', 'http://elsewhere.example/api/users/getUser'],
  ['GET', '//elsewhere.example/api/users/getUser'],
];

describe('the spec-only client', () => {
  it.each([
    { title: 'names every call of spec §7', calls: SPEC_CALLS, named: true },
    {
      title:
        'refuses what the spec does not name: our own routes, other methods, query strings, dot segments',
      calls: NOT_SPEC_CALLS,
      named: false,
    },
  ])('$title', ({ calls, named }) => {
    for (const [method, path] of calls) expect(isSpecCall(method, path), `${method} ${path}`).toBe(named);
  });

  it('a call outside spec §7 throws before anything is sent', async () => {
    const { sent, fetch } = recordingFetch();
    const client = new SpecClient('http://gateway.test', { fetch });
    await expect(
      client.request('POST', '/api/admin/claims', { body: { kind: 'deposit', id: 'd1' } }),
    ).rejects.toThrow(new NotASpecCall('POST', '/api/admin/claims'));
    expect(sent).toEqual([]);
    expect(client.calls).toEqual([]);
  });

  it('a first state-changing call fetches the CSRF cookie with loginStatus, then sends it back as the header', async () => {
    const { sent, fetch } = recordingFetch();
    const client = new SpecClient('http://gateway.test', { fetch });
    await client.confirmPayment('d1', 'ok');
    expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
      'GET http://gateway.test/api/users/loginStatus',
      'PATCH http://gateway.test/api/payments/confirmPayment',
    ]);
    const headers = sent[1]!.init.headers as Record<string, string>;
    expect(headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      cookie: 'XSRF-TOKEN=abc%3D123',
      'x-xsrf-token': 'abc=123',
    });
    expect(JSON.parse(sent[1]!.init.body as string)).toEqual({
      transactionId: 'd1',
      status: 'Confirmed',
      notes: 'ok',
    });
  });

  it('a client on another host shares the cookie jar and the call log', async () => {
    const { sent, fetch } = recordingFetch();
    const a = new SpecClient('http://a.test', { fetch });
    await a.loginStatus();
    const b = a.on('http://b.test');
    await b.approveKyc('u1');
    expect(sent.map((s) => s.url)).toEqual([
      'http://a.test/api/users/loginStatus',
      'http://b.test/api/users/kyc/approve/u1',
    ]);
    expect(a.calls).toEqual(['GET /api/users/loginStatus', 'PATCH /api/users/kyc/approve/u1']);
  });
});
