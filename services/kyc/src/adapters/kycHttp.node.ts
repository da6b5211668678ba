/**
 * The kyc service's document endpoint (node:http), reached only through the gateway's proxy:
 *
 *   POST /upload                      multipart, files `front` and `back` (streamed, size-limited,
 *                                     checked by magic bytes, an image's dimensions by its header),
 *                                     for the caller in x-user-id
 *   GET  /documents/:userId/:side     streams one document to an admin or its owner, as an attachment
 *                                     under a sandboxing Content-Security-Policy
 *   GET  /healthz                     liveness (no secret needed, says nothing)
 *
 * Every other request must carry x-internal-token = KYC_INTERNAL_TOKEN (the gateway's shared secret)
 * and the caller as the gateway established it: x-user-id, x-user-role, x-user-verified,
 * x-user-impersonator-id, x-correlation-id, and optionally x-user-name / x-user-email
 * (encodeURIComponent). Answers JSON { message } with the spec's texts.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { finished, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { CONTENT_TYPES, EXTENSIONS, MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { IMAGE_HEADER_BYTES, imageDimensionsOf } from '@meridian/platform/files/imageDimensions';
import {
  DomainError,
  forbidden,
  invalid,
  unauthenticated,
  type ErrorKind,
} from '@meridian/platform/eventSourcing/errors';
import type { Logger } from '@meridian/platform/logger';
import { withCorrelation } from '@meridian/platform/logger';
import { listenOn } from '@meridian/platform/util/freePort';
import {
  checkCanSubmit,
  DOCUMENT_FORBIDDEN,
  DOCUMENT_NOT_FOUND,
  findDocument,
  NOT_LOGGED_IN,
  submitKyc,
  type KycCaller,
  type KycContext,
} from '../app/kycCases.js';
import type { DocumentStore } from '../app/ports.js';
import {
  assertBothSides,
  assertImageDimensions,
  assertKycFileKind,
  FILE_MESSAGES,
  type KycFileKind,
} from '../domain/fileType.js';
import { MESSAGES, type DocumentRef, type Side } from '../domain/kycCase.js';

/** What a served document may do when a browser shows it: nothing (no script, no request, no form). */
export const DOCUMENT_CSP = "sandbox; default-src 'none'";

export interface KycHttpDeps {
  ctx: KycContext;
  documents: DocumentStore;
  internalToken: string;
  logger: Logger;
  /** Test hook; the product limit is 10,485,760 bytes. */
  maxFileBytes?: number;
}

export interface KycHttpServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  precondition: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
};
const INTERNAL_ONLY = 'Unauthorized';
const SAFE_TYPES = new Map<string, KycFileKind>(
  Object.entries(CONTENT_TYPES).map(([k, v]) => [v, k as KycFileKind]),
);

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const header = (req: IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
};
const decoded = (raw: string): string => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return '';
  }
};

function sendJson(
  res: ServerResponse,
  status: number,
  body: { message: string },
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  res.end(text);
}

export async function startKycHttpServer(options: KycHttpDeps & { address: string }): Promise<KycHttpServer> {
  const { ctx, documents, logger } = options;
  const maxBytes = options.maxFileBytes ?? MAX_UPLOAD_BYTES;
  const expectedToken = digest(options.internalToken);

  /** A body this long is read and dropped before an early answer: two documents and their framing. */
  const drainLimit = 2 * maxBytes + 64 * 1024;

  /**
   * Answers an error. When the body is still coming (the case or the account refuses the upload before
   * it is read), a body of a bounded, announced length is read and dropped FIRST: answered sooner, the
   * connection would end under the gateway's proxy while it still writes (EPIPE, a 503 instead of this
   * answer). One of unknown or larger length is answered at once, and the connection ends.
   */
  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    const answer = (extra: Record<string, string> = {}) => {
      if (err instanceof DomainError) sendJson(res, STATUS[err.kind], { message: err.message }, extra);
      else sendJson(res, 500, { message: 'Something went wrong' }, extra);
    };
    if (!(err instanceof DomainError)) logger.error({ err }, 'kyc http request failed');
    if (req.readableEnded) return answer();
    const announced = Number(req.headers['content-length'] ?? Number.NaN);
    req.resume();
    if (announced <= drainLimit) finished(req, () => answer());
    else answer({ connection: 'close' });
  };

  const callerOf = (req: IncomingMessage): KycCaller => {
    const userId = header(req, 'x-user-id');
    if (!userId) throw unauthenticated(NOT_LOGGED_IN);
    return {
      userId,
      role: header(req, 'x-user-role') || 'subscriber',
      impersonatorId: header(req, 'x-user-impersonator-id') || undefined,
      correlationId: header(req, 'x-correlation-id') || randomUUID(),
    };
  };

  /**
   * Reads the first bytes of a file part (at least IMAGE_HEADER_BYTES unless it ends sooner: the kind and an
   * image's dimensions are read from them), leaving it paused.
   */
  const readHead = (file: Readable) =>
    new Promise<{ head: Buffer; ended: boolean }>((resolve, reject) => {
      const parts: Buffer[] = [];
      let length = 0;
      const cleanup = () => {
        file.off('data', onData);
        file.off('end', onEnd);
        file.off('error', onError);
      };
      const onData = (chunk: Buffer) => {
        parts.push(chunk);
        length += chunk.length;
        if (length >= IMAGE_HEADER_BYTES) {
          file.pause();
          cleanup();
          resolve({ head: Buffer.concat(parts), ended: false });
        }
      };
      const onEnd = () => {
        cleanup();
        resolve({ head: Buffer.concat(parts), ended: true });
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      file.on('data', onData);
      file.on('end', onEnd);
      file.on('error', onError);
    });

  /** Streams one file part into the document store after checking its kind; the size is checked on the way. */
  const saveFile = async (userId: string, side: Side, file: Readable): Promise<DocumentRef> => {
    const { head, ended } = await readHead(file);
    const kind = assertKycFileKind(head);
    assertImageDimensions(kind, imageDimensionsOf(head));
    const tooLarge = () => invalid(FILE_MESSAGES.tooLarge, 'KYC_FILE_TOO_LARGE');
    let total = 0;
    const guard = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        if (total > maxBytes) done(tooLarge());
        else done(null, chunk);
      },
    });
    file.on('error', (err) => guard.destroy(err));
    guard.on('close', () => {
      file.unpipe(guard);
      file.resume();
    });
    guard.write(head);
    if (ended) guard.end();
    else file.pipe(guard);
    const id = randomUUID();
    const { size } = await documents.save({ id, userId, side, contentType: CONTENT_TYPES[kind] }, guard);
    return { documentId: id, contentType: CONTENT_TYPES[kind], size };
  };

  /** Parses the multipart body; resolves with the stored sides, or rejects having removed what it stored. */
  const receive = (req: IncomingMessage, userId: string) =>
    new Promise<{ front?: DocumentRef; back?: DocumentRef }>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers: req.headers,
          limits: {
            fileSize: maxBytes + 1,
            files: 2,
            fields: 10,
            fieldSize: 1024,
            parts: 12,
            headerPairs: 50,
          },
        });
      } catch {
        reject(invalid(FILE_MESSAGES.bothSides, 'KYC_SIDE_MISSING'));
        return;
      }
      const stored: { front?: DocumentRef; back?: DocumentRef } = {};
      const seen = new Set<string>();
      const pending: Array<Promise<void>> = [];
      let failure: unknown;
      let finished = false;
      const finish = async (err?: unknown) => {
        if (finished) return;
        finished = true;
        await Promise.allSettled(pending);
        const error = err ?? failure;
        if (error) {
          for (const ref of [stored.front, stored.back])
            if (ref) await documents.delete(userId, ref.documentId).catch(() => undefined);
          reject(error);
        } else resolve(stored);
      };
      parser.on('file', (name, file, info) => {
        const side = name === 'front' || name === 'back' ? name : null;
        if (!side || seen.has(side) || !info.filename || failure) {
          file.resume();
          return;
        }
        seen.add(side);
        pending.push(
          saveFile(userId, side, file).then(
            (ref) => {
              stored[side] = ref;
            },
            (err) => {
              failure ??= err;
              file.resume();
            },
          ),
        );
      });
      parser.on('close', () => void finish());
      parser.on('error', (err) => {
        req.unpipe(parser);
        req.resume();
        void finish(
          failure ??
            (err instanceof DomainError ? err : invalid(FILE_MESSAGES.bothSides, 'KYC_SIDE_MISSING')),
        );
      });
      req.on('aborted', () => void finish(invalid('Upload aborted')));
      req.pipe(parser);
    });

  const upload = async (req: IncomingMessage, res: ServerResponse) => {
    const caller = callerOf(req);
    const isVerified = header(req, 'x-user-verified') === 'true';
    // refuse before storing a byte when the case, the account or the caller (an admin impersonating
    // the user) does not allow an upload
    await checkCanSubmit(ctx.store, caller, isVerified);
    const received = await receive(req, caller.userId);
    const newDocs = [received.front, received.back].filter((d): d is DocumentRef => d !== undefined);
    try {
      const { front, back } = assertBothSides(received);
      const { replaced } = await submitKyc(ctx, {
        caller,
        isVerified,
        name: decoded(header(req, 'x-user-name')),
        email: decoded(header(req, 'x-user-email')),
        front,
        back,
      });
      for (const old of replaced) {
        await documents
          .delete(caller.userId, old.documentId)
          .catch((err) => logger.warn({ err }, 'could not delete a replaced KYC document'));
      }
    } catch (err) {
      for (const d of newDocs) await documents.delete(caller.userId, d.documentId).catch(() => undefined);
      throw err;
    }
    sendJson(res, 200, { message: MESSAGES.uploaded });
  };

  const download = async (req: IncomingMessage, res: ServerResponse, ownerId: string, side: Side) => {
    const caller = callerOf(req);
    if (caller.role !== 'admin' && caller.userId !== ownerId) throw forbidden(DOCUMENT_FORBIDDEN);
    const ref = await findDocument(ctx.store, ownerId, side);
    const opened = await documents.open(ownerId, ref.documentId);
    if (!opened) throw new DomainError('not_found', DOCUMENT_NOT_FOUND);
    const kind = SAFE_TYPES.get(opened.meta.contentType);
    res.writeHead(200, {
      'content-type': kind ? CONTENT_TYPES[kind] : 'application/octet-stream',
      'content-length': String(opened.size),
      // never a page of ours: saved, not opened, by a browser that navigates to it; when shown anyway
      // (a PDF viewer, an <img>), sandboxed with nothing it may load or run
      'content-disposition': `attachment; filename="kyc-${side}.${kind ? EXTENSIONS[kind] : 'bin'}"`,
      'content-security-policy': DOCUMENT_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'cross-origin-resource-policy': 'same-origin',
    });
    await pipeline(opened.stream, res);
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const { pathname } = new URL(req.url ?? '/', 'http://kyc.internal');
    if (req.method === 'GET' && pathname === '/healthz') return sendJson(res, 200, { message: 'ok' });
    const token = header(req, 'x-internal-token');
    if (!token || !timingSafeEqual(digest(token), expectedToken)) throw unauthenticated(INTERNAL_ONLY);
    if (pathname === '/upload') {
      if (req.method !== 'POST')
        return sendJson(res, 405, { message: 'Method not allowed' }, { allow: 'POST' });
      return upload(req, res);
    }
    const doc = /^\/documents\/([^/]+)\/(front|back)$/.exec(pathname);
    if (doc) {
      if (req.method !== 'GET')
        return sendJson(res, 405, { message: 'Method not allowed' }, { allow: 'GET' });
      const ownerId = decoded(doc[1]!);
      if (!ownerId) throw new DomainError('not_found', DOCUMENT_NOT_FOUND);
      return download(req, res, ownerId, doc[2] as Side);
    }
    throw new DomainError('not_found', 'Not found');
  };

  let inFlight = 0;
  let onIdle: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) onIdle?.();
    });
    void withCorrelation(header(req, 'x-correlation-id') || undefined, () =>
      route(req, res).catch((err) => fail(req, res, err)),
    );
  });
  server.requestTimeout = 5 * 60_000;
  server.headersTimeout = 30_000;

  const [host, portText] = splitAddress(options.address);
  const port = await listenOn(server, Number(portText), host);
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  logger.info({ url }, 'kyc document HTTP endpoint listening');

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // keep-alive connections without a request in flight are closed now; running ones may finish (5 s)
        onIdle = () => server.closeAllConnections();
        if (inFlight === 0) onIdle();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
      return stopped;
    },
  };
}

function splitAddress(address: string): [string, string] {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  if (!m) throw new Error(`KYC_HTTP_ADDR must be host:port, got ${address}`);
  return [m[1]!, m[2]!];
}
