/**
 * The default run: the standalone listens on loopback unless HOST says otherwise,
 * and its secrets and first admin password are generated at the first start and kept under DATA_DIR
 * (data/secrets.json, mode 600), never fixed public defaults.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testPng } from '@meridian/platform/testing/testImage';
import { verifiedUser } from '@meridian/gateway/testing/composition';
import { startStandalone, type Standalone } from './standalone.js';

const dirs: string[] = [];
const running: Standalone[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The env `make start` gives it: no secrets, no ADMIN_PASSWORD, no HOST. */
const start = async (dataDir: string, env: Record<string, string> = {}) => {
  const app = await startStandalone({
    dataDir,
    env: { NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', WEB_DIST: '/nonexistent', ...env },
  });
  running.push(app);
  return app;
};
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'meridian-standalone-'));
  dirs.push(d);
  return d;
};
const OLD_DEFAULTS = {
  ADMIN_PASSWORD: 'Admin123!',
  JWT_SECRET: 'dev-only-jwt-secret-change-me-0123456789abcdef',
  SECRETS_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  KYC_INTERNAL_TOKEN: 'meridian-dev-kyc-internal-token-not-for-production',
  INTERNAL_SERVICE_TOKEN: 'meridian-dev-internal-service-token-not-for-production',
};

/** A verified user who uploads both sides of an identity document (real PNGs). */
const registerAndUpload = async (url: string) => {
  const user = await verifiedUser(url);
  const form = new FormData();
  for (const side of ['front', 'back'])
    form.append(side, new Blob([new Uint8Array(testPng())], { type: 'image/png' }), `${side}.png`);
  const res = await user.browser.postForm('/api/users/uploadKycDocuments', form);
  return { user, uploaded: res.status };
};

const loginStatus = async (url: string, email: string, password: string) => {
  const res = await fetch(new URL('/api/users/login', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, body: (await res.json()) as { message?: string } };
};

describe('the standalone in its default run', () => {
  it('listens on 127.0.0.1 only unless HOST says otherwise', async () => {
    const app = await start(tempDir());
    expect((app.gateway.server.address() as AddressInfo).address).toBe('127.0.0.1');
    const res = await fetch(new URL('/healthz', app.url));
    expect(res.status).toBe(200);
    const open = await start(tempDir(), { HOST: '0.0.0.0' });
    expect((open.gateway.server.address() as AddressInfo).address).toBe('0.0.0.0');
    await Promise.all([app.stop(), open.stop()]);
  });

  it('generates the secrets and the first admin password at the first start, keeps them (mode 600), the same on a second start', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const file = join(dir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    for (const [name, old] of Object.entries(OLD_DEFAULTS)) {
      expect(saved[name], name).toBeTruthy();
      expect(saved[name], name).not.toBe(old);
    }
    // printed once: the first start hands the generated password out
    expect(first.admin).toEqual({ email: 'admin@meridian.local', password: saved.ADMIN_PASSWORD });
    const wrong = await loginStatus(first.url, first.admin.email, OLD_DEFAULTS.ADMIN_PASSWORD);
    const right = await loginStatus(first.url, first.admin.email, saved.ADMIN_PASSWORD);
    expect(right.body.message).not.toBe(wrong.body.message); // the new-browser step, not "invalid"
    expect(right.body.message).toMatch(/new browser/i);
    await first.stop();

    const second = await start(dir);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(saved);
    expect(second.admin.password).toBeUndefined(); // not printed again
    expect((await loginStatus(second.url, second.admin.email, saved.ADMIN_PASSWORD)).body.message).toMatch(
      /new browser/i,
    );
    await second.stop();
  });

  it('keeps its data private: every folder under DATA_DIR 700, every file 600 (stores, bus, key vault, secrets, KYC documents)', async () => {
    const dir = tempDir();
    const app = await start(dir);
    expect((await registerAndUpload(app.url)).uploaded).toBe(200);
    const modes = (d: string): Array<[string, number]> =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => {
        const p = join(d, e.name);
        const mode = statSync(p).mode & 0o777;
        return e.isDirectory() ? [[`${p}/`, mode], ...modes(p)] : [[p, mode]];
      });
    const all = [[`${dir}/`, statSync(dir).mode & 0o777] as [string, number], ...modes(dir)];
    expect(all.some(([p]) => p.endsWith('.sqlite-wal'))).toBe(true);
    expect(all.some(([p]) => p.endsWith('.bin'))).toBe(true); // a KYC document
    for (const [p, mode] of all) expect(mode.toString(8), p).toBe(p.endsWith('/') ? '700' : '600');
    await app.stop();
  });

  it('ADMIN_PASSWORD and the other secrets from the env win over generated ones', async () => {
    const dir = tempDir();
    const app = await start(dir, { ADMIN_PASSWORD: 'Chosen-Passw0rd!' });
    expect(app.admin.password).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')).ADMIN_PASSWORD).toBe(
      'Chosen-Passw0rd!',
    );
    await app.stop();
  });
});
