import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, ConcurrencyError, type ErrorKind } from '../eventSourcing/errors.js';
import { currentCorrelationId, withCorrelation } from '../logger.js';
import { callUnary, createGrpcClient, type UnaryCall } from './client.js';
import { HealthClient, ServingStatus } from './health.js';
import { startGrpcServer, type GrpcServerHandle } from './server.js';
import { jsonMethod, startTestGrpcServer } from '../testing/jsonGrpc.js';
import { domainErrorFromGrpc, grpcErrorMessage, grpcStatusToHttp, GENERIC_ERROR_MESSAGE } from './status.js';

// A tiny JSON-serialised test service (real services use ts-proto definitions).
const method = (name: string) => jsonMethod('meridian.test.v1.TestService', name);
const TestService = {
  fail: method('Fail'),
  whoami: method('Whoami'),
  slow: method('Slow'),
} satisfies grpc.ServiceDefinition;

interface Req {
  kind?: ErrorKind | 'bug' | 'concurrency';
  message?: string;
}
interface TestClient extends grpc.Client {
  fail: UnaryCall<Req, object>;
  whoami: UnaryCall<Req, { correlationId?: string }>;
  slow: UnaryCall<Req, object>;
}
const TestClient = grpc.makeGenericClientConstructor(
  TestService,
  'meridian.test.v1.TestService',
) as unknown as {
  new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ): TestClient;
};

let server: GrpcServerHandle;
/** over HTTP/2, and through the in-process transport (inProcess.ts): both must behave the same */
let wire: TestClient;
let local: TestClient;
let releaseSlow!: () => void;
const slowGate = new Promise<void>((r) => (releaseSlow = r));

beforeAll(async () => {
  server = await startTestGrpcServer(TestService, {
    fail: async (req: Req) => {
      if (req.kind === 'bug') throw new Error('SELECT * FROM secrets failed at line 3');
      if (req.kind === 'concurrency') throw new ConcurrencyError('s', 1, 2);
      throw new DomainError(req.kind as ErrorKind, req.message ?? 'nope', 'some_code');
    },
    whoami: async () => ({ correlationId: currentCorrelationId() }),
    slow: async () => {
      await slowGate;
      return {};
    },
  });
  wire = createGrpcClient(TestClient, server.address);
  local = createGrpcClient(TestClient, server.address, { inProcess: true });
});

afterAll(async () => {
  releaseSlow();
  wire?.close();
  local?.close();
  await server?.stop();
});

describe.each([
  { transport: 'over HTTP/2', inProcess: false },
  { transport: 'in process', inProcess: true },
])('gRPC helpers ($transport)', ({ inProcess }) => {
  let client: TestClient;
  beforeAll(() => {
    client = inProcess ? local : wire;
  });

  it('binds port 0 to a real port', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
  });

  const cases: Array<[ErrorKind, grpc.status, number]> = [
    ['invalid', grpc.status.INVALID_ARGUMENT, 400],
    ['precondition', grpc.status.FAILED_PRECONDITION, 400],
    ['unauthenticated', grpc.status.UNAUTHENTICATED, 401],
    ['forbidden', grpc.status.PERMISSION_DENIED, 403],
    ['not_found', grpc.status.NOT_FOUND, 404],
    ['conflict', grpc.status.ALREADY_EXISTS, 409],
    ['rate_limited', grpc.status.RESOURCE_EXHAUSTED, 429],
    ['unavailable', grpc.status.UNAVAILABLE, 503],
  ];
  it.each(cases)(
    'maps DomainError %s to status %i and HTTP %i with its message',
    async (kind, code, http) => {
      const err = (await callUnary(client, 'fail', { kind, message: `message for ${kind}` }).catch(
        (e: unknown) => e,
      )) as grpc.ServiceError;
      expect(err.code).toBe(code);
      expect(err.details).toBe(`message for ${kind}`);
      expect(grpcStatusToHttp(err.code)).toBe(http);
      expect(grpcErrorMessage(err)).toBe(`message for ${kind}`);
      const back = domainErrorFromGrpc(err) as DomainError;
      expect(back).toBeInstanceOf(DomainError);
      expect(back.kind).toBe(kind);
      expect(back.code).toBe('some_code');
    },
  );

  it('answers INTERNAL with a generic message for any other error (no internals leak)', async () => {
    const err = (await callUnary(client, 'fail', { kind: 'bug' }).catch(
      (e: unknown) => e,
    )) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.INTERNAL);
    expect(err.details).toBe(GENERIC_ERROR_MESSAGE);
    expect(grpcStatusToHttp(err.code)).toBe(500);
    expect(grpcErrorMessage(err)).toBe(GENERIC_ERROR_MESSAGE);
  });

  it('answers ABORTED (409) for a concurrency conflict', async () => {
    const err = (await callUnary(client, 'fail', { kind: 'concurrency' }).catch(
      (e: unknown) => e,
    )) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(grpcStatusToHttp(err.code)).toBe(409);
  });

  it('carries the correlation id in metadata (explicit, from the context, or a fresh one)', async () => {
    expect(await callUnary(client, 'whoami', {}, { correlationId: 'corr-explicit' })).toEqual({
      correlationId: 'corr-explicit',
    });
    expect(await withCorrelation('corr-ctx', () => callUnary(client, 'whoami', {}))).toEqual({
      correlationId: 'corr-ctx',
    });
    expect((await callUnary(client, 'whoami', {})).correlationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('enforces the deadline', async () => {
    const err = (await callUnary(client, 'slow', {}, { deadlineMs: 50 }).catch(
      (e: unknown) => e,
    )) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(grpcStatusToHttp(err.code)).toBe(504);
  });

  it('maps a transport failure to 503 with a generic message', async () => {
    const dead = createGrpcClient(TestClient, '127.0.0.1:1', { inProcess });
    const err = (await callUnary(dead, 'whoami', {}, { deadlineMs: 2_000 }).catch(
      (e: unknown) => e,
    )) as grpc.ServiceError;
    dead.close();
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(err.code);
    expect(grpcErrorMessage(err)).toMatch(/temporarily unavailable/);
  });

  it('answers grpc.health.v1 Check and Watch, and reports NOT_SERVING on stop', async () => {
    const health = createGrpcClient(HealthClient, server.address, { inProcess });
    const check = (service: string) =>
      new Promise<{ status?: ServingStatus; code?: grpc.status }>((resolve) =>
        health.check({ service }, new grpc.Metadata(), { deadline: Date.now() + 2_000 }, (err, res) =>
          resolve(err ? { code: err.code } : { status: res.status }),
        ),
      );
    expect(await check('')).toEqual({ status: ServingStatus.SERVING });
    expect(await check('meridian.test.v1.TestService')).toEqual({ status: ServingStatus.SERVING });
    expect(await check('nope')).toEqual({ code: grpc.status.NOT_FOUND });

    // a second server, to watch it stop
    const other = await startGrpcServer({ address: '127.0.0.1:0', services: [] });
    const otherHealth = createGrpcClient(HealthClient, other.address, { inProcess });
    const seen: ServingStatus[] = [];
    const stream = otherHealth.watch({ service: '' });
    const ended = new Promise<void>((resolve) => {
      stream.on('data', (m: { status: ServingStatus }) => seen.push(m.status));
      stream.on('end', () => resolve());
      stream.on('error', () => resolve());
    });
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    await other.stop();
    await ended;
    expect(seen).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    otherHealth.close();
    health.close();
  });
});
