/**
 * The security headers and the dev mailbox's reach, for what cannot run here (no container engine, maybe
 * no nginx):
 * - the nginx that serves the SPA in compose and infra/k8s (infra/docker/nginx.conf, copied by
 *   web.Dockerfile) sends CSP with frame-ancestors 'none' and X-Frame-Options DENY on every answer of
 *   every location (nginx drops the server's add_header in a location that has its own);
 * - compose publishes Mailpit's inbox (every email, readable without a login) on loopback only.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readText } from './infra.env.js';

interface Block {
  name: string;
  directives: string[][];
  children: Block[];
}

/** A small nginx config reader: blocks, and directives as word lists (quotes kept together, comments dropped). */
export function parseNginx(text: string): Block {
  const tokens = [
    ...text.replace(/#[^\n]*/g, '').matchAll(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[{};]|[^\s{};]+/g),
  ].map((m) => m[0]);
  const root: Block = { name: '', directives: [], children: [] };
  const stack = [root];
  let words: string[] = [];
  for (const tok of tokens) {
    const top = stack[stack.length - 1]!;
    if (tok === '{') {
      const block: Block = { name: words.join(' '), directives: [], children: [] };
      top.children.push(block);
      stack.push(block);
      words = [];
    } else if (tok === '}') {
      stack.pop();
    } else if (tok === ';') {
      top.directives.push(words);
      words = [];
    } else words.push(tok.replace(/^(["'])(.*)\1$/, '$2'));
  }
  return root;
}

const headersOf = (b: Block) => b.directives.filter((d) => d[0] === 'add_header');

describe('infra/docker/nginx.conf (the SPA in compose and infra/k8s)', () => {
  const server = parseNginx(readText('infra/docker/nginx.conf')).children.find((b) => b.name === 'server')!;
  const locations = server.children.filter((b) => b.name.startsWith('location'));

  it('is copied into the web image as its only site', () => {
    expect(readText('infra/docker/web.Dockerfile')).toMatch(
      /^COPY infra\/docker\/nginx\.conf \/etc\/nginx\/conf\.d\/default\.conf$/m,
    );
    expect(locations.map((l) => l.name)).toEqual(
      expect.arrayContaining(['location /', 'location /api/', 'location /assets/', 'location = /index.html']),
    );
  });

  it.each([['server', server] as const, ...locations.map((l) => [l.name, l] as const)])(
    '%s: every answer (errors too) carries CSP frame-ancestors none and X-Frame-Options DENY',
    (_name, block) => {
      // a location with add_header of its own does not inherit the server's
      const effective = headersOf(block).length > 0 ? headersOf(block) : headersOf(server);
      const header = (name: string) => effective.find((d) => d[1]!.toLowerCase() === name.toLowerCase());
      const csp = header('Content-Security-Policy');
      expect(csp?.[2]).toMatch(/(^|;)\s*frame-ancestors 'none'\s*(;|$)/);
      expect(csp?.[2]).toMatch(/(^|;)\s*default-src 'self'/);
      expect(csp?.[2]).toMatch(/(^|;)\s*object-src 'none'/);
      expect(csp?.at(-1)).toBe('always');
      expect(header('X-Frame-Options')?.slice(2)).toEqual(['DENY', 'always']);
      expect(header('X-Content-Type-Options')?.slice(2)).toEqual(['nosniff', 'always']);
    },
  );

  it("the gateway's own copies of those headers are hidden where nginx proxies to it (one of each)", () => {
    for (const l of locations.filter((b) => b.directives.some((d) => d[0] === 'proxy_pass'))) {
      const hidden = l.directives.filter((d) => d[0] === 'proxy_hide_header').map((d) => d[1]!.toLowerCase());
      expect(hidden, l.name).toEqual(
        expect.arrayContaining(['content-security-policy', 'x-frame-options', 'x-content-type-options']),
      );
    }
  });
});

describe('infra/docker/nginx.conf: compression and caching', () => {
  const server = parseNginx(readText('infra/docker/nginx.conf')).children.find((b) => b.name === 'server')!;
  const location = (name: string) => server.children.find((b) => b.name === name);
  const directive = (b: Block | undefined, name: string) => b?.directives.find((d) => d[0] === name);
  const cacheControl = (b: Block | undefined) =>
    b?.directives.find((d) => d[0] === 'add_header' && d[1]!.toLowerCase() === 'cache-control');

  it("gzips text answers, sends the build's precompressed .gz files as they are, and says Vary", () => {
    expect(directive(server, 'gzip')?.[1]).toBe('on');
    expect(directive(server, 'gzip_static')?.[1]).toBe('on');
    expect(directive(server, 'gzip_vary')?.[1]).toBe('on');
    expect(directive(server, 'gzip_types')?.slice(1)).toEqual(
      expect.arrayContaining([
        'text/css',
        'text/javascript',
        'application/javascript',
        'application/json',
        'image/svg+xml',
      ]),
    );
    expect(Number(directive(server, 'gzip_min_length')?.[1])).toBeGreaterThan(0);
  });

  it('brotli_static only with the brotli module loaded (nginx refuses to start on an unknown directive)', () => {
    const text = readText('infra/docker/nginx.conf') + readText('infra/docker/web.Dockerfile');
    const all = (b: Block): string[][] => [...b.directives, ...b.children.flatMap(all)];
    const brotli = all(server).filter((d) => d[0]!.startsWith('brotli'));
    if (/load_module\s+\S*brotli/.test(text))
      expect(brotli.find((d) => d[0] === 'brotli_static')?.[1]).toBe('on');
    else expect(brotli).toEqual([]);
  });

  it('the proxied locations leave compression to the gateway (a download is never gzipped on the way)', () => {
    for (const name of ['location /api/', 'location /socket.io/'])
      expect(directive(location(name), 'gzip')?.[1], name).toBe('off');
  });

  it('hashed assets are immutable for a year, in one Cache-Control header', () => {
    const assets = location('location /assets/');
    expect(cacheControl(assets)?.slice(2)).toEqual(['public, max-age=31536000, immutable', 'always']);
    // expires would add a second Cache-Control
    expect(directive(assets, 'expires')).toBeUndefined();
  });

  it('index.html, and so every client route that try_files answers with it, is revalidated (no-cache)', () => {
    expect(cacheControl(location('location = /index.html'))?.slice(2)).toEqual(['no-cache', 'always']);
    expect(directive(location('location /'), 'try_files')?.at(-1)).toBe('/index.html');
  });
});

describe('docker-compose.yml: the dev mail catcher', () => {
  it("publishes Mailpit's inbox on 127.0.0.1 only", () => {
    const compose = parse(readText('docker-compose.yml')) as {
      services: Record<string, { ports?: string[] }>;
    };
    const ports = compose.services.mailpit?.ports ?? [];
    expect(ports.length).toBeGreaterThan(0);
    for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });
});
