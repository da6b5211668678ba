/**
 * The baseline servers of `make bench`, run as ONE child process (as the standalone target is one), so
 * the load generator in the bench process competes with neither:
 *   - a bare Node HTTP server                     GET /           → {"ok":true}
 *   - an Express app                              GET /hello      → {"ok":true}
 *   - a raw @grpc/grpc-js unary echo              bench.Echo/Echo (bytes in → the same bytes out), on two
 *     ports: plaintext, and over mutual TLS as the services' calls are (platform grpc/mesh.ts): its
 *     certificate from GRPC_TLS_DIR (ca.crt, tls.crt, tls.key, the services' layout), a client
 *     certificate signed by that CA required
 *   - a bare socket.io server on the bare HTTP server: POST /emit?to=<socket id> emits 'pong' to that
 *     socket and answers 204 (the baseline of "HTTP decision → socket push")
 * Listens on 127.0.0.1 only, on ports the OS picks; prints one JSON line with them on stdout
 * ({ bare, express, grpc, grpcTls }).
 */
import { createServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { commonEnvValue } from '@meridian/platform/config';
import { loadMeshIdentity } from '@meridian/platform/grpc/mesh';
import { listenOn } from '@meridian/platform/util/freePort';
import express from 'express';
import { Server as SocketServer } from 'socket.io';
import { echoServiceDefinition } from './echoService.js';

const bare = createServer((req, res) => {
  if (req.method === 'POST' && req.url?.startsWith('/emit')) {
    const to = new URL(req.url, 'http://127.0.0.1').searchParams.get('to') ?? '';
    req.resume();
    req.on('end', () => {
      io.to(to).emit('pong', { at: Date.now() });
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
const io = new SocketServer(bare, { path: '/socket.io', transports: ['websocket'] });

const app = express();
app.get('/hello', (_req, res) => {
  res.json({ ok: true });
});
const hello = createServer(app);

const grpcServer = new grpc.Server();
grpcServer.addService(echoServiceDefinition, {
  echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) =>
    callback(null, call.request),
});
const bindGrpc = (credentials: grpc.ServerCredentials) =>
  new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', credentials, (err, port) => (err ? reject(err) : resolve(port))),
  );
const tlsDir = commonEnvValue(process.env, 'GRPC_TLS_DIR');
if (!tlsDir) throw new Error('baselineServer: GRPC_TLS_DIR (the TLS echo certificate folder) is not set');
const tls = loadMeshIdentity(tlsDir);
const grpcPort = await bindGrpc(grpc.ServerCredentials.createInsecure());
const grpcTlsPort = await bindGrpc(
  grpc.ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true),
);

const ports = {
  bare: await listenOn(bare, 0, '127.0.0.1'),
  express: await listenOn(hello, 0, '127.0.0.1'),
  grpc: grpcPort,
  grpcTls: grpcTlsPort,
};
process.stdout.write(`${JSON.stringify(ports)}\n`);

const stop = () => {
  grpcServer.forceShutdown();
  void io.close();
  hello.closeAllConnections();
  hello.close();
  bare.closeAllConnections();
  bare.close();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
