/**
 * The in-process transport (inProcess.ts) against the same server over HTTP/2: no connection is opened,
 * the messages go through the codecs, the limits, the server's metric and the trace context are the
 * wire's, and once the server stops the client falls back to the channel. grpc.int.spec.ts runs the
 * statuses, correlation ids, deadlines and health checks over both transports.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsExposition } from '../metrics.js';
import { waitFor } from '../testing/waitFor.js';
import { jsonMethod } from '../testing/jsonGrpc.js';
import { expectCallSpans, remoteTrace, tracingPerTest, whoami, type Whoami } from '../testing/traceProbe.js';
import { runInContext } from '../tracing.js';
import { callUnary, createGrpcClient, type UnaryCall } from './client.js';
import { startGrpcServer, unaryHandlers, type GrpcServerHandle } from './server.js';

const SERVICE = 'meridian.test.v1.InProcessService';
const TestService = {
  echo: jsonMethod(SERVICE, 'Echo'),
  whoami: jsonMethod(SERVICE, 'Whoami'),
} satisfies grpc.ServiceDefinition;
interface Echoed {
  got: Record<string, unknown>;
}
interface TestClient extends grpc.Client {
  echo: UnaryCall<Record<string, unknown>, Echoed>;
  whoami: UnaryCall<object, Whoami>;
}
const TestClient = grpc.makeGenericClientConstructor(TestService, SERVICE) as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => TestClient;

/** What the handler answered last (to tell it from what the client got). */
let answered: Echoed | undefined;
const implementation = unaryHandlers({
  echo: async (req: Record<string, unknown>) => (answered = { got: req }),
  whoami,
});

let server: GrpcServerHandle;
let local: TestClient;
let wire: TestClient;

beforeAll(async () => {
  server = await startGrpcServer({
    address: '127.0.0.1:0',
    services: [{ definition: TestService, implementation }],
    serverOptions: { 'grpc.max_receive_message_length': 1_000 },
  });
  local = createGrpcClient(TestClient, server.address, { inProcess: true });
  wire = createGrpcClient(TestClient, server.address);
});

afterAll(async () => {
  local?.close();
  wire?.close();
  await server?.stop();
});

describe('the in-process transport', () => {
  it('answers without opening a connection, through the codecs (no object shared)', async () => {
    const sent = { at: new Date(0), left: undefined, n: 1 };
    const res = await callUnary(local, 'echo', sent);
    expect(res).toEqual({ got: { at: '1970-01-01T00:00:00.000Z', n: 1 } });
    expect(res).not.toBe(answered);
    expect(local.getChannel().getConnectivityState(false)).toBe(grpc.connectivityState.IDLE);

    expect(await callUnary(wire, 'echo', sent)).toEqual(res);
    expect(wire.getChannel().getConnectivityState(false)).toBe(grpc.connectivityState.READY);
  });

  it("keeps the server's message size limit", async () => {
    for (const client of [local, wire]) {
      const err = (await callUnary(client, 'echo', { big: 'x'.repeat(2_000) }).catch(
        (e: unknown) => e,
      )) as grpc.ServiceError;
      expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    }
  });

  it("records the call in the server's handling-time metric", async () => {
    const count = async () => {
      const { body } = await metricsExposition();
      const line = body
        .split('\n')
        .find((l) =>
          l.startsWith(
            `grpc_server_handling_seconds_count{grpc_service="${SERVICE}",grpc_method="Echo",grpc_code="OK"}`,
          ),
        );
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await count();
    await callUnary(local, 'echo', {});
    expect(await count()).toBe(before + 1);
  });

  it('passes an inbound trace context on (metadata and the active trace), and none without one', async () => {
    const { traceId, traceparent, ctx } = remoteTrace();
    expect(await runInContext(ctx, () => callUnary(local, 'whoami', {}))).toEqual({ traceId, traceparent });
    expect(await callUnary(local, 'whoami', {})).toEqual({});
  });

  it('a graceful stop waits for the in-process calls in flight, as for those on the wire', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const other = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [
        {
          definition: TestService,
          implementation: unaryHandlers({
            echo: async (req: Record<string, unknown>) => {
              started();
              await gate;
              return { got: req };
            },
            whoami: async () => ({}),
          }),
        },
      ],
    });
    const client = createGrpcClient(TestClient, other.address, { inProcess: true });
    try {
      const seen: string[] = [];
      const call = callUnary(client, 'echo', { n: 1 }).then((r) => seen.push(`answered ${r.got.n}`));
      await handlerStarted;
      const stopping = other.stop().then(() => seen.push('stopped'));
      // the server no longer takes calls (a new one goes over the wire and is refused) ...
      await waitFor(async () => {
        const err = (await callUnary(client, 'whoami', {}, { deadlineMs: 1_000 }).catch(
          (e: unknown) => e,
        )) as grpc.ServiceError | object;
        return 'code' in err || null;
      }, 'later calls refused');
      // ... but its stop waits for the call in flight, which is answered
      expect(seen).toEqual([]);
      release();
      await Promise.all([call, stopping]);
      expect(seen.sort()).toEqual(['answered 1', 'stopped']);
    } finally {
      client.close();
    }
  });

  it('goes over the wire once the server stopped (and fails as a call to a stopped server does)', async () => {
    const other = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [{ definition: TestService, implementation }],
    });
    const client = createGrpcClient(TestClient, other.address, { inProcess: true });
    try {
      expect(await callUnary(client, 'echo', { n: 2 })).toEqual({ got: { n: 2 } });
      await other.stop();
      const err = (await callUnary(client, 'echo', { n: 3 }, { deadlineMs: 2_000 }).catch(
        (e: unknown) => e,
      )) as grpc.ServiceError;
      expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(err.code);
    } finally {
      client.close();
    }
  });
});

describe('the in-process transport, tracing on', () => {
  const tracing = tracingPerTest();

  it('a call is a CLIENT span and a SERVER span under it, the handler runs in the server span', async () => {
    await expectCallSpans(tracing, `${SERVICE}/Whoami`, () => callUnary(local, 'whoami', {}));
  });
});
