/**
 * A call whose connection breaks under it ends UNAVAILABLE (its outcome unknown, tried again with its key),
 * never INTERNAL (which the gateway answers 500): a raw HTTP/2 server answers a call's headers, then ends the
 * stream without a gRPC status, as a server killed mid-call leaves it.
 */
import { createServer, constants, type Http2Server } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOn } from '../util/freePort.js';
import { callUnary } from './client.js';

const Echo = grpc.makeGenericClientConstructor(
  {
    echo: {
      path: '/meridian.test.Echo/Echo',
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (value: Buffer) => value,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (value: Buffer) => value,
    },
  },
  'Echo',
);
type EchoClient = grpc.Client & { echo: grpc.requestCallback<Buffer> & ((...args: unknown[]) => unknown) };

let server: Http2Server;
let client: EchoClient;
let ended = 0;

beforeAll(async () => {
  server = createServer();
  server.on('stream', (stream) => {
    // headers as a gRPC server sends them, then the stream ends without trailers (no grpc-status)
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    stream.close(constants.NGHTTP2_NO_ERROR);
    ended++;
  });
  const port = await listenOn(server, 0, '127.0.0.1');
  client = new Echo(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as EchoClient;
});

afterAll(async () => {
  client?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('a call whose connection breaks under it', () => {
  it('is UNAVAILABLE (tried again), not INTERNAL', async () => {
    const err = (await callUnary(client as never, 'echo' as never, Buffer.from('hi') as never).catch(
      (e: unknown) => e,
    )) as grpc.ServiceError;
    expect(ended).toBe(1);
    expect(err.details).toMatch(/Call ended without gRPC status/);
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });
});
