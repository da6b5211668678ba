/**
 * `make up` without homework: scripts/dotenv.mjs (run by `make up` before docker compose) writes a
 * git-ignored .env with generated secrets and the first admin's login on the first run, prints that
 * login once, and never overwrites an existing .env. The values it writes, put into docker-compose.yml
 * the way compose interpolates them, pass every service's config schema in production.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { MESH_SERVICES } from '@meridian/platform/grpc/callers';
import { DEPLOYABLES, ROOT, interpolate, readText, schemaVerdict } from './infra.env.js';

const work = mkdtempSync(join(tmpdir(), 'meridian-dotenv-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh folder holding a copy of docker-compose.yml; the script writes its .env beside it. */
function project(): { compose: string; envFile: string } {
  const dir = mkdtempSync(join(work, 'p-'));
  const compose = join(dir, 'docker-compose.yml');
  copyFileSync(join(ROOT, 'docker-compose.yml'), compose);
  return { compose, envFile: join(dir, '.env') };
}

/** Runs the script as `make up` does (plain node), with only the given environment. */
function run(compose: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/dotenv.mjs'), '--compose', compose], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH!, ...env },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const dotenv = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z0-9_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** Every `${VAR:?…}` of a compose file. */
const requiredOf = (text: string) => [
  ...new Set([...text.matchAll(/\$\{([A-Z0-9_]+):?\?/g)].map((m) => m[1]!)),
];

describe('scripts/dotenv.mjs (make up)', () => {
  it('first run: writes .env (mode 600) with every variable compose requires, and prints the admin login once', () => {
    const { compose, envFile } = project();
    const r = run(compose);
    expect(r.status, r.out).toBe(0);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const values = dotenv(envFile);
    const required = requiredOf(readText('docker-compose.yml'));
    expect(required).toEqual(
      expect.arrayContaining([
        'JWT_SECRET',
        'SECRETS_KEY',
        'KYC_INTERNAL_TOKEN',
        'ADMIN_EMAIL',
        'ADMIN_PASSWORD',
      ]),
    );
    for (const name of required) expect(values[name], name).toMatch(/\S/);
    expect(r.out).toContain(`First admin: ${values.ADMIN_EMAIL} / ${values.ADMIN_PASSWORD}`);
    // the optional ones are listed, commented out, with compose's defaults
    const text = readFileSync(envFile, 'utf8');
    for (const name of ['APP_URL', 'COOKIE_SECURE', 'GOOGLE_CLIENT_ID'])
      expect(text).toMatch(new RegExp(`^# ${name}=`, 'm'));
  });

  it('the generated values pass every service’s config schema in production, as compose interpolates them', () => {
    const { compose, envFile } = project();
    expect(run(compose).status).toBe(0);
    const values = dotenv(envFile);
    const services = (
      parse(readText('docker-compose.yml')) as { services: Record<string, { environment?: object }> }
    ).services;
    for (const [name, schema] of DEPLOYABLES) {
      const env = Object.fromEntries(
        Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(v, values)]),
      );
      expect(schemaVerdict(schema, env), name).toBe('ok');
    }
  });

  it('makes the platform CA and a certificate per process in .mesh (600), signed by it, and keeps them', () => {
    const { compose } = project();
    const mesh = join(dirname(compose), '.mesh');
    const r = run(compose);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/Made the mesh certificates in .*\.mesh \(ca, gateway, /);
    expect(statSync(mesh).mode & 0o777).toBe(0o700);
    const ca = new X509Certificate(readFileSync(join(mesh, 'ca.crt')));
    expect(ca.ca).toBe(true);
    for (const name of MESH_SERVICES) {
      for (const file of ['ca.crt', 'tls.crt', 'tls.key'])
        expect([name, file, statSync(join(mesh, name, file)).mode & 0o777]).toEqual([name, file, 0o600]);
      expect(readdirSync(join(mesh, name)).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
      const cert = new X509Certificate(readFileSync(join(mesh, name, 'tls.crt')));
      expect(cert.subject).toBe(`CN=${name}`);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(readFileSync(join(mesh, name, 'tls.key'))))).toBe(true);
    }
    const before = readFileSync(join(mesh, 'ledger', 'tls.crt'), 'utf8');
    const again = run(compose);
    expect(again.out).not.toMatch(/Made the mesh certificates/);
    expect(readFileSync(join(mesh, 'ledger', 'tls.crt'), 'utf8')).toBe(before);
  });

  it('every run makes new secrets: two installations never share them', () => {
    const a = project();
    const b = project();
    run(a.compose);
    run(b.compose);
    const [x, y] = [dotenv(a.envFile), dotenv(b.envFile)];
    for (const name of ['JWT_SECRET', 'SECRETS_KEY', 'KYC_INTERNAL_TOKEN', 'ADMIN_PASSWORD'])
      expect(x[name]).not.toBe(y[name]);
  });

  it('never overwrites an existing .env, and does not print the password again', () => {
    const { compose, envFile } = project();
    run(compose);
    const before = readFileSync(envFile, 'utf8');
    const again = run(compose);
    expect(again.status).toBe(0);
    expect(readFileSync(envFile, 'utf8')).toBe(before);
    expect(again.out).not.toContain(dotenv(envFile).ADMIN_PASSWORD);
    expect(again.out).toMatch(/left as it is/);
  });

  it('an operator’s own .env keeps its values; only a variable it lacks is appended', () => {
    const { compose, envFile } = project();
    const own =
      '# mine\nJWT_SECRET=operator-chosen-jwt-secret-0123456789abcdef\nADMIN_EMAIL=ops@example.com\n';
    writeFileSync(envFile, own);
    const r = run(compose);
    expect(r.status, r.out).toBe(0);
    const text = readFileSync(envFile, 'utf8');
    expect(text.startsWith(own)).toBe(true);
    const values = dotenv(envFile);
    expect(values.JWT_SECRET).toBe('operator-chosen-jwt-secret-0123456789abcdef');
    expect(values.ADMIN_EMAIL).toBe('ops@example.com');
    expect(Object.keys(values).filter((k) => k === 'JWT_SECRET')).toHaveLength(1);
    expect(values.SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(r.out).toContain(`First admin: ops@example.com / ${values.ADMIN_PASSWORD}`);
  });

  it('takes a value from the environment instead of generating one (compose would use it anyway)', () => {
    const { compose, envFile } = project();
    const r = run(compose, { ADMIN_PASSWORD: 'From-The-Shell-1' });
    expect(r.status).toBe(0);
    expect(dotenv(envFile).ADMIN_PASSWORD).toBe('From-The-Shell-1');
    expect(r.out).not.toContain('From-The-Shell-1');
  });

  it('generates a new required secret it does not know by name; refuses, naming it, a required non-secret', () => {
    const secret = project();
    writeFileSync(
      secret.compose,
      `${readFileSync(secret.compose, 'utf8')}\nx-extra: \${GRAFANA_ADMIN_PASSWORD:?set it}\n`,
    );
    expect(run(secret.compose).status).toBe(0);
    expect(dotenv(secret.envFile).GRAFANA_ADMIN_PASSWORD).toMatch(/^[\w-]{32}$/);

    const other = project();
    writeFileSync(
      other.compose,
      `${readFileSync(other.compose, 'utf8')}\nx-extra: \${PUBLIC_HOSTNAME:?set it}\n`,
    );
    const r = run(other.compose);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/requires PUBLIC_HOSTNAME/);
    expect(() => statSync(other.envFile)).toThrow();
  });

  it('git ignores the .env, and make up writes it before docker compose runs', () => {
    expect(execFileSync('git', ['check-ignore', '.env'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe(
      '.env',
    );
    const make = execFileSync('make', ['-n', 'up'], { cwd: ROOT, encoding: 'utf8' });
    const lines = make.split('\n');
    const writes = lines.findIndex((l) => l.includes('scripts/dotenv.mjs'));
    const compose = lines.findIndex((l) => l.includes('docker compose up'));
    expect(writes).toBeGreaterThanOrEqual(0);
    expect(writes).toBeLessThan(compose);
  });
});
