/**
 * A request larger than HTTP/2's default 65,535-byte window reaches our server's handler while the client's
 * event loop is busy (server.ts, SERVER_STREAM_WINDOW_BYTES). With the default window the rest of such a
 * request waits for a WINDOW_UPDATE that the busy client cannot read: the maturity scheduler asked for its
 * next batch (about 130 KB), then recorded the batch before for about 100 ms, and the ledger sat idle that
 * long every batch.
 *
 * The client runs in a worker thread (its own event loop), so this thread's server answers while the
 * client blocks its loop right after sending.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_STREAM_WINDOW_BYTES, type GrpcServerHandle } from './server.js';
import { jsonMethod, startTestGrpcServer } from '../testing/jsonGrpc.js';

const TestService = { big: jsonMethod('meridian.test.v1.WindowService', 'Big') };
/** how long the client blocks its event loop after sending */
const CLIENT_BUSY_MS = 1_500;

/** the client: sends `bytes` of request, then blocks its loop; posts when it sent (ms since the epoch) */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const grpc = require(workerData.grpcPath);
const def = { big: {
  path: '/meridian.test.v1.WindowService/Big', requestStream: false, responseStream: false,
  requestSerialize: (v) => Buffer.from(JSON.stringify(v)), requestDeserialize: (b) => JSON.parse(b.toString()),
  responseSerialize: (v) => Buffer.from(JSON.stringify(v)), responseDeserialize: (b) => JSON.parse(b.toString()),
} };
const Client = grpc.makeGenericClientConstructor(def, 'WindowService');
const client = new Client(workerData.address, grpc.credentials.createInsecure());
const call = (bytes) => new Promise((resolve, reject) =>
  client.big({ pad: 'x'.repeat(bytes) }, (err, res) => (err ? reject(err) : resolve(res))));
(async () => {
  await call(10); // connected, and the first call's setup out of the way
  const sentAt = Date.now();
  const answered = call(workerData.bytes);
  // busy right after the call was made (a transaction of microtasks, say): the loop turns once first
  setImmediate(() => { const until = Date.now() + workerData.busyMs; while (Date.now() < until); });
  await answered;
  parentPort.postMessage({ sentAt });
  client.close();
})().catch((err) => parentPort.postMessage({ error: String(err) }));
`;

let server: GrpcServerHandle;
/** when each request's handler ran (ms since the epoch), by its size */
const arrived = new Map<number, number>();

beforeAll(async () => {
  server = await startTestGrpcServer(TestService, {
    big: async (req: { pad: string }) => {
      arrived.set(req.pad.length, Date.now());
      return {};
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

/** From the client's send to the server's handler, with the client busy for CLIENT_BUSY_MS after it. */
async function sendToHandlerMs(bytes: number): Promise<number> {
  const worker = new Worker(CLIENT, {
    eval: true,
    workerData: {
      grpcPath: createRequire(import.meta.url).resolve('@grpc/grpc-js'),
      address: server.address,
      bytes,
      busyMs: CLIENT_BUSY_MS,
    },
  });
  try {
    const reply = await new Promise<{ sentAt?: number; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (reply.error) throw new Error(reply.error);
    return (arrived.get(bytes) as number) - (reply.sentAt as number);
  } finally {
    await worker.terminate();
  }
}

describe('the server’s HTTP/2 receive window', () => {
  it('takes a request of several default windows while its client is busy', async () => {
    // 4 × the default window, well inside ours: the client writes it all before its loop blocks
    const bytes = 4 * 65_535;
    expect(bytes).toBeLessThan(SERVER_STREAM_WINDOW_BYTES);
    const ms = await sendToHandlerMs(bytes);
    // with the default window the handler ran only after the client's busy spell (≥ CLIENT_BUSY_MS)
    expect(ms).toBeLessThan(CLIENT_BUSY_MS / 2);
  });
});
