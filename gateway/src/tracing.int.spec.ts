/**
 * OpenTelemetry traces end to end: one admin approval is ONE trace, from the
 * gateway's HTTP span through the gRPC call to the ledger, its outbox publish, the consumers that react
 * (notification, the gateway's live pushes) down to the investor's email and socket push. The whole
 * standalone runs in this process with an in-memory exporter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installTestTracing,
  SpanKind,
  type ReadableSpan,
  type TestTracing,
} from '@meridian/platform/tracing';
import type { TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import {
  adminBrowser,
  openSocket,
  requestDeposit,
  startMoneyComposition,
  verifiedUser,
  waitFor,
} from './testing/money.js';

let tracing: TestTracing;
let t: TestComposition;
let admin: HttpSession;

beforeAll(async () => {
  tracing = installTestTracing('meridian-test');
  t = await startMoneyComposition();
  admin = await adminBrowser(t.url);
});

afterAll(async () => {
  await t?.stop();
  await tracing?.stop();
});

const hex = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');

/** The chain of parents of `span` inside `spans` (nearest first). */
function ancestorsOf(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const out: ReadableSpan[] = [];
  for (let p = span.parentSpanContext?.spanId; p && byId.has(p); p = byId.get(p)!.parentSpanContext?.spanId)
    out.push(byId.get(p)!);
  return out;
}

describe('one approval, one trace', () => {
  it('the HTTP request, gRPC, outbox publish, consumers, the email and the socket push share the trace id', async () => {
    const investor = await verifiedUser(t.url);
    const socket = await openSocket(t.url, investor.browser);
    try {
      const transactionId = await requestDeposit(investor.browser, 10);
      // a decision needs the admin's claim on the item (live/claims.ts): its own request, its own trace
      const claim = await admin.post('/api/admin/claims', { kind: 'deposit', id: transactionId });
      expect(claim.status).toBeLessThan(300);

      // the admin's browser (or a proxy) started the trace: W3C traceparent in
      const traceId = hex(32);
      const inbound = `00-${traceId}-${hex(16)}-01`;
      const res = await admin.request('PATCH', '/api/payments/confirmPayment', {
        body: { transactionId, status: 'Confirmed', notes: '' },
        headers: { traceparent: inbound },
      });
      expect(res.status).toBe(200);
      // ... and out: the response names the gateway's server span of this trace
      const out = res.headers.get('traceparent');
      expect(out).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(out).not.toBe(inbound);

      await socket.waitFor((p) => p.event === 'balances/changed', 'the investor balance push');
      const isEmail = (s: ReadableSpan) => s.name === 'send email';
      const isPush = (s: ReadableSpan) =>
        s.name === 'live push' &&
        (s.attributes['meridian.live.rooms'] as string[]).includes(`user:${investor.id}`);
      const spans = await waitFor(
        () => {
          const inTrace = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
          return inTrace.some(isEmail) && inTrace.some(isPush) ? inTrace : null;
        },
        { timeoutMs: 15_000, message: 'the email and push spans in the approval trace' },
      );

      const http = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] !== undefined);
      expect(http?.name).toBe('PATCH /api/payments/confirmPayment');
      expect(http?.attributes['http.response.status_code']).toBe(200);
      expect(out).toContain(http!.spanContext().spanId);

      const grpcClient = spans.find(
        (s) => s.kind === SpanKind.CLIENT && s.name.startsWith('meridian.ledger.'),
      );
      expect(grpcClient?.name).toMatch(/^meridian\.ledger\.v1\.LedgerService\/ConfirmDeposit$/);
      const grpcServer = spans.find((s) => s.kind === SpanKind.SERVER && s.name === grpcClient!.name);
      expect(grpcServer?.parentSpanContext?.spanId).toBe(grpcClient!.spanContext().spanId);
      expect(grpcServer?.attributes['rpc.grpc.status_code']).toBe(0);

      const publish = spans.find(
        (s) => s.kind === SpanKind.PRODUCER && s.name === 'publish meridian.ledger.events',
      );
      expect(publish).toBeDefined();
      expect(ancestorsOf(publish!, spans)).toContain(grpcServer);

      const consumedBy = (group: string) =>
        spans.find(
          (s) =>
            s.kind === SpanKind.CONSUMER &&
            s.name === 'process meridian.ledger.events' &&
            s.attributes['messaging.consumer.group.name'] === group &&
            s.parentSpanContext?.spanId === publish!.spanContext().spanId,
        );
      expect(consumedBy('notification')).toBeDefined();

      const email = spans.find(isEmail)!;
      expect(email.kind).toBe(SpanKind.CLIENT);
      const emailChain = ancestorsOf(email, spans);
      expect(emailChain).toContain(consumedBy('notification'));
      expect(emailChain).toContain(http);

      const push = spans.find(isPush)!;
      const pushChain = ancestorsOf(push, spans);
      const liveConsumer = pushChain[0];
      expect(liveConsumer.kind).toBe(SpanKind.CONSUMER);
      expect(liveConsumer.parentSpanContext?.spanId).toBe(publish!.spanContext().spanId);
      expect(pushChain).toContain(http);
      expect(spans.every((s) => s.status.code !== 2)).toBe(true);
    } finally {
      socket.close();
    }
  });

  it('a request without a traceparent starts its own trace and answers its traceparent', async () => {
    const res = await admin.get('/api/users/getUser');
    expect(res.status).toBe(200);
    const out = res.headers.get('traceparent');
    expect(out).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = out!.split('-');
    const spans = await waitFor(() => {
      const inTrace = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
      return inTrace.some((s) => s.spanContext().spanId === spanId) ? inTrace : null;
    }, 'the request span');
    const http = spans.find((s) => s.spanContext().spanId === spanId)!;
    expect(http.parentSpanContext).toBeUndefined();
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.name).toBe('GET /api/users/getUser');
  });
});
