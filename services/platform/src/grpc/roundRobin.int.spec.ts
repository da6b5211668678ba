/**
 * Replicas share the load: a client whose target resolves to two servers (two replicas of one service)
 * sends its calls to both, round robin, and keeps answering when one of them stops.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRPC_TARGET_PATTERN } from '../config.js';
import { jsonMethod, startTestGrpcServer } from '../testing/jsonGrpc.js';
import { callUnary, createGrpcClient, waitForClientReady, type UnaryCall } from './client.js';
import type { GrpcServerHandle } from './server.js';

const TestService = {
  whoami: jsonMethod('meridian.test.v1.ReplicaService', 'Whoami'),
} satisfies grpc.ServiceDefinition;
interface ReplicaClient extends grpc.Client {
  whoami: UnaryCall<object, { replica: string }>;
}
const ReplicaClient = grpc.makeGenericClientConstructor(
  TestService,
  'meridian.test.v1.ReplicaService',
) as unknown as {
  new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ): ReplicaClient;
};

const replica = (name: string) =>
  startTestGrpcServer(TestService, { whoami: async () => ({ replica: name }) });

let a: GrpcServerHandle;
let b: GrpcServerHandle;
let client: ReplicaClient;
const clients: grpc.Client[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([replica('a'), replica('b')]);
  client = createGrpcClient(ReplicaClient, `ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`);
  clients.push(client);
});

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all([a?.stop(0), b?.stop(0)]);
});

const whoami = async (c: ReplicaClient) => (await callUnary(c, 'whoami', {})).replica;

/** Who answered each of `n` calls made one after the other. */
async function answers(c: ReplicaClient, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await whoami(c));
  return out;
}

describe('a client of two replicas', () => {
  it('sends calls to both, in turn (round robin, not pick_first)', async () => {
    await waitForClientReady(client);
    // the second connection may be ready a moment after the first: calls go to the ready ones
    const warmUp: string[] = [];
    while (!(warmUp.includes('a') && warmUp.includes('b')) && warmUp.length < 200)
      warmUp.push(await whoami(client));
    expect(new Set(warmUp)).toEqual(new Set(['a', 'b']));
    // both connected: the calls alternate
    const served = await answers(client, 20);
    expect(served.filter((r) => r === 'a')).toHaveLength(10);
    expect(served.filter((r) => r === 'b')).toHaveLength(10);
  });

  it('keeps answering when one replica stops: every call goes to the other', async () => {
    await a.stop(0);
    const served = await answers(client, 10);
    expect(served).toEqual(Array(10).fill('b'));
  });
});

describe('the targets a client takes', () => {
  it('a plain host:port and dns:///host:port reach the server', async () => {
    for (const target of [b.address, `dns:///${b.address}`]) {
      const c = createGrpcClient(ReplicaClient, target);
      clients.push(c);
      expect(await whoami(c)).toBe('b');
    }
  });

  it('env.grpcTarget admits the forms grpc-js resolves, nothing else', () => {
    for (const ok of [
      '127.0.0.1:50054',
      'ledger:50054',
      'dns:///ledger.meridian.svc.cluster.local:50054',
      'dns:ledger:50054',
      'ipv4:127.0.0.1:50054,127.0.0.1:50064',
      '[::1]:50054',
      'ipv6:[::1]:50054,[::1]:50064',
      'unix:/run/ledger.sock',
    ])
      expect(GRPC_TARGET_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['ledger', 'http://ledger:50054', 'dns:///a:1,b:2', 'ipv4:ledger:1', 'a b:1'])
      expect(GRPC_TARGET_PATTERN.test(bad), bad).toBe(false);
  });
});
