/**
 * One file (and a few short text fields) read from a multipart/form-data request, for the uploads the
 * gateway hands to a service over gRPC (support attachments; KYC documents stream to their service
 * instead, with the same bounds: `announcedLength`, `closeUnlessDrainable`). The body is refused unread when it is not multipart (400) or announces more than the limit
 * and its framing (413); the file is read up to the limit and a larger one is 413 (the rest of the body
 * read and dropped, or the connection closed after the answer when its length is unknown or too large).
 * The file's kind is never judged here: the service judges the content.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { ErrorRequestHandler, Request } from 'express';
import { HttpError } from './errors.js';

/** Room for the multipart framing and the text fields beside the file. */
const FRAMING_BYTES = 64 * 1024;

export interface UploadedFile {
  content: Buffer;
  /** The name the browser gave it (only ever shown after the service has reduced it to a safe one). */
  fileName: string;
}

export interface MultipartUpload {
  file?: UploadedFile;
  fields: Record<string, string>;
}

export interface UploadLimits {
  maxFileBytes: number;
  /** The form field holding the file. */
  fileField: string;
  /** Text fields taken, each at most `maxFieldBytes`. */
  fields: readonly string[];
  maxFieldBytes: number;
  messages: { notMultipart: string; tooLarge: string };
}

/** The Content-Length the request announced (Node has checked it is a number), if any. */
export const announcedLength = (req: IncomingMessage): number | undefined => {
  const length = req.headers['content-length'];
  return length === undefined ? undefined : Number(length);
};

/** The most a request carrying one file of `maxFileBytes` may announce. */
export const maxUploadBytes = (maxFileBytes: number): number => maxFileBytes + FRAMING_BYTES;

/**
 * An error answered before the body was read keeps the connection only when the rest of the body can
 * be read and dropped in bounds (announced and within `maxBytes`); otherwise the answer closes it.
 */
export const closeUnlessDrainable =
  (maxBytes: number): ErrorRequestHandler =>
  (err, req, res, next) => {
    if (!req.complete && (announcedLength(req) ?? Infinity) > maxBytes) res.setHeader('connection', 'close');
    next(err);
  };

/** Reads the multipart body: at most one file (`limits.fileField`) and the named text fields. */
export function readMultipart(req: Request, limits: UploadLimits): Promise<MultipartUpload> {
  if (!req.is('multipart/form-data')) throw new HttpError(400, limits.messages.notMultipart);
  if ((announcedLength(req) ?? 0) > maxUploadBytes(limits.maxFileBytes))
    throw new HttpError(413, limits.messages.tooLarge);
  return new Promise<MultipartUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          // one byte more than the limit: a file of exactly the limit is taken, a larger one is cut there
          fileSize: limits.maxFileBytes + 1,
          files: 1,
          fields: limits.fields.length,
          fieldSize: limits.maxFieldBytes,
          parts: limits.fields.length + 1,
          headerPairs: 50,
        },
      });
    } catch {
      reject(new HttpError(400, limits.messages.notMultipart));
      return;
    }
    const out: MultipartUpload = { fields: {} };
    let failure: HttpError | undefined;
    const fail = (err: HttpError) => {
      failure ??= err;
    };
    parser.on('file', (name, stream, info) => {
      if (name !== limits.fileField || out.file) {
        stream.resume();
        return;
      }
      const parts: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => parts.push(chunk));
      stream.on('limit', () => fail(new HttpError(413, limits.messages.tooLarge)));
      stream.on('end', () => {
        if (stream.truncated) fail(new HttpError(413, limits.messages.tooLarge));
        if (!failure) out.file = { content: Buffer.concat(parts), fileName: info.filename ?? '' };
      });
    });
    parser.on('field', (name, value) => {
      if (limits.fields.includes(name)) out.fields[name] = value;
    });
    parser.on('close', () => (failure ? reject(failure) : resolve(out)));
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      reject(failure ?? new HttpError(400, limits.messages.notMultipart));
    });
    req.on('aborted', () => reject(new HttpError(400, limits.messages.notMultipart)));
    req.pipe(parser);
  });
}
