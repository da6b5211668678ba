/**
 * Requests sent one after another through one keep-alive connection (node:http, not fetch), to see what
 * an answer does to the connection it came on: whether the next request is answered on it, on a new one
 * (the server said `Connection: close` and closed it), or never (a request left half read).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A Content-Length larger than the body: the rest is never sent. */
  announced?: number;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** `{ message }` of a JSON answer, else undefined. */
  message?: string;
}

/** How long one request may wait for its answer before the sequence fails. */
const ANSWER_WITHIN_MS = 5_000;

/**
 * Sends `requests` in order through one keep-alive agent that holds one socket at a time; `sockets` is
 * how many connections they took (1: every answer kept the connection). Rejects when a request is not
 * answered within 5 s or its connection ends without an answer.
 */
export async function onOneConnection(
  baseUrl: string,
  requests: readonly RawRequest[],
): Promise<{ answers: RawAnswer[]; sockets: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<Socket>();
  const send = (r: RawRequest) =>
    new Promise<RawAnswer>((resolve, reject) => {
      const headers: Record<string, string> = { ...r.headers };
      if (r.body !== undefined) headers['content-length'] = String(r.announced ?? Buffer.byteLength(r.body));
      const req = httpRequest(new URL(r.path, baseUrl), {
        method: r.method,
        agent,
        timeout: ANSWER_WITHIN_MS,
        headers,
      });
      req.on('socket', (socket) => sockets.add(socket));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let message: string | undefined;
          try {
            message = (JSON.parse(text) as { message?: string }).message;
          } catch {
            message = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, message });
        });
      });
      req.on('timeout', () =>
        req.destroy(new Error(`${r.method} ${r.path}: no answer within ${ANSWER_WITHIN_MS} ms`)),
      );
      req.on('error', (err) => reject(new Error(`${r.method} ${r.path}: ${err.message}`)));
      if (r.body === undefined) req.end();
      else if (r.announced === undefined) req.end(r.body);
      else req.write(r.body);
    });
  try {
    const answers: RawAnswer[] = [];
    for (const r of requests) answers.push(await send(r));
    return { answers, sockets: sockets.size };
  } finally {
    agent.destroy();
  }
}
