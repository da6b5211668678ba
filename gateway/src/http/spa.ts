import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Meridian</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5">
<h1>Meridian</h1>
<p>The web app is not built yet. Run <code>make build</code> (or <code>make start</code>) and reload this page.</p>
<p>The API is up: try <a href="/api/countries">/api/countries</a>.</p>
</body></html>`;

/** Hashed file names (vite's `assets/<name>-<hash>.<ext>`): a new build writes new names. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Other files at the root of the build (favicon.svg). */
const SHORT = 'public, max-age=3600';
/** index.html names the current hashed assets: the browser revalidates it every time. */
export const NO_CACHE = 'no-cache';

/** The precompressed siblings the build writes (web/vite.config.ts), best first. */
const ENCODINGS = [
  { name: 'br', ext: '.br' },
  { name: 'gzip', ext: '.gz' },
] as const;

/**
 * Serves the built SPA from `webDist`, with client-side routing: every other GET answers index.html.
 * `*.map` answers 404; dotfiles (vite's `.vite/manifest.json`) are not served (express.static's default).
 *
 * A file with a `<file>.br` or `<file>.gz` next to it is sent as that file, with `Content-Encoding` and the
 * original's `Content-Type`, when the request's Accept-Encoding allows it (brotli first, then gzip);
 * otherwise as it is. Every answer of this router carries `Vary: Accept-Encoding`. Hashed assets are
 * cached for a year (`immutable`), index.html (and so every client route) is revalidated (`no-cache`).
 */
export function spaRouter(webDist: string): Router {
  const root = path.resolve(webDist);
  const assets = path.join(root, 'assets');
  const index = path.join(root, 'index.html');
  const r = Router();
  // Source maps are not public: production builds write none, and one left in webDist is not served.
  r.use((req, res, next) => {
    if (req.path.endsWith('.map')) res.status(404).type('text').send('Not Found');
    else next();
  });
  r.use('/assets', precompressed(assets, IMMUTABLE));
  r.use(
    '/assets',
    express.static(assets, {
      index: false,
      immutable: true,
      maxAge: '1y',
      fallthrough: false,
    }),
  );
  const sendIndex: RequestHandler = (req, res, next) => {
    if (!existsSync(index)) {
      res.status(200).type('html').set('Cache-Control', 'no-store').send(NOT_BUILT);
      return;
    }
    res.vary('Accept-Encoding');
    sendVariant(req, res, next, index, NO_CACHE);
  };
  // /index.html itself as the fallback sends it (a middleware, not a route: the route table lists the API's)
  r.use((req, res, next) => {
    if (req.path === '/index.html' && (req.method === 'GET' || req.method === 'HEAD'))
      sendIndex(req, res, next);
    else next();
  });
  r.use(precompressed(root, SHORT));
  r.use(express.static(root, { index: false, maxAge: '1h' }));
  r.get('/{*splat}', sendIndex);
  return r;
}

/**
 * GET and HEAD of a file under `dir` that has a precompressed sibling the client accepts: that sibling.
 * Anything else goes on (to express.static), with `Vary: Accept-Encoding` set either way.
 */
function precompressed(dir: string, cacheControl: string): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    res.vary('Accept-Encoding');
    const file = fileUnder(dir, req.path);
    if (!file || !variantFor(req, file)) {
      next();
      return;
    }
    sendVariant(req, res, next, file, cacheControl);
  };
}

/** Sends `file`, or its best precompressed sibling that the request accepts. */
function sendVariant(
  req: Request,
  res: Response,
  next: (err?: unknown) => void,
  file: string,
  cacheControl: string,
): void {
  const variant = variantFor(req, file);
  res.set('Cache-Control', cacheControl);
  if (!variant) {
    res.sendFile(file, (err) => {
      if (err && !res.headersSent) next(err);
    });
    return;
  }
  // send(1) keeps a Content-Type already set: the original's, not the .br/.gz file's
  res.type(path.extname(file)).set('Content-Encoding', variant.encoding);
  res.sendFile(variant.file, (err) => {
    if (!err || res.headersSent) return;
    res.removeHeader('Content-Encoding');
    res.removeHeader('Content-Type');
    next(err);
  });
}

/** The file `urlPath` names under `dir`, if it is a regular file and no segment is a dotfile. */
function fileUnder(dir: string, urlPath: string): string | undefined {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (rel.includes('\0') || rel.split('/').some((s) => s.startsWith('.'))) return undefined;
  const file = path.join(dir, rel);
  if (!file.startsWith(dir + path.sep)) return undefined;
  return isFile(file) ? file : undefined;
}

function variantFor(req: Request, file: string): { encoding: string; file: string } | undefined {
  const accepted = acceptedEncodings(req.get('accept-encoding'));
  for (const e of ENCODINGS) {
    if (accepted(e.name) && isFile(file + e.ext)) return { encoding: e.name, file: file + e.ext };
  }
  return undefined;
}

/** Whether an Accept-Encoding header allows an encoding (q > 0, by name or by `*`); none: identity only. */
export function acceptedEncodings(header: string | undefined): (name: string) => boolean {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  return (name) => (q.get(name) ?? q.get(name === 'gzip' ? 'x-gzip' : '') ?? q.get('*') ?? 0) > 0;
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}
