import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/** Answers smaller than this are sent as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * JSON answers are worth compressing; everything else the gateway sends is not, or must not be:
 * - downloads (`Content-Disposition: attachment`: statements, KYC documents, support files) are sent
 *   byte for byte, and their images and PDFs are compressed already;
 * - server-sent events (`text/event-stream`) and other streams would wait on the compressor's buffer;
 * - the SPA's files are precompressed at build time (http/spa.ts sends them with Content-Encoding set,
 *   which the middleware leaves alone);
 * - socket.io answers on the HTTP server before Express sees the request.
 */
export function compressible(_req: Request, res: Response): boolean {
  if (/^\s*attachment\b/i.test(String(res.getHeader('Content-Disposition') ?? ''))) return false;
  const type = String(res.getHeader('Content-Type') ?? '').toLowerCase();
  return /^application\/(?:[\w.-]+\+)?json\s*(;|$)/.test(type);
}

/**
 * Brotli (quality 4, the middleware's default) or gzip, by the request's Accept-Encoding, for JSON
 * answers of at least COMPRESSION_THRESHOLD bytes; adds `Vary: Accept-Encoding` to those it considers.
 */
export function jsonCompression(): RequestHandler {
  return compression({ threshold: COMPRESSION_THRESHOLD, filter: compressible }) as RequestHandler;
}
