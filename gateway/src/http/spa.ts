import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Meridian</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5">
<h1>Meridian</h1>
<p>The web app is not built yet. Run <code>make build</code> (or <code>make start</code>) and reload this page.</p>
<p>The API is up: try <a href="/api/countries">/api/countries</a>.</p>
</body></html>`;

/**
 * Serves the built SPA from `webDist`, with client-side routing: every other GET answers index.html.
 * `*.map` answers 404; dotfiles (vite's `.vite/manifest.json`) are not served (express.static's default).
 */
export function spaRouter(webDist: string): Router {
  const root = path.resolve(webDist);
  const index = path.join(root, 'index.html');
  const r = Router();
  // Source maps are not public: production builds write none, and one left in webDist is not served.
  r.use((req, res, next) => {
    if (req.path.endsWith('.map')) res.status(404).type('text').send('Not Found');
    else next();
  });
  r.use(
    '/assets',
    express.static(path.join(root, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '1y',
      fallthrough: false,
    }),
  );
  r.use(express.static(root, { index: false, maxAge: '1h' }));
  r.get('/{*splat}', (req, res) => {
    if (!existsSync(index)) {
      res.status(200).type('html').set('Cache-Control', 'no-store').send(NOT_BUILT);
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  return r;
}
