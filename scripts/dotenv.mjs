#!/usr/bin/env node
/**
 * `make up` runs this first: docker-compose.yml needs secrets (every `${VAR:?…}` in it) that nobody
 * should have to invent by hand. On the first run it writes a git-ignored `.env` beside the compose
 * file (mode 600) with generated secrets and the first admin's login, and prints that login once.
 * An existing `.env` is never overwritten: its values stay as they are, and only a required variable it
 * lacks (one a newer compose file asks for) is appended. A variable set in the environment is written
 * with the environment's value instead of a generated one (compose would use the environment's anyway).
 *
 * It also makes the platform CA and each service's certificate for mutual TLS between the containers
 * (services/platform/src/grpc/meshCertificates.mjs, with the openssl command-line tool) in `.mesh/`
 * beside the compose file, kept like the .env.
 *
 * Plain Node (no dependencies), so `make up` needs neither `npm ci` nor tsx.
 *   node scripts/dotenv.mjs [--env-file PATH] [--compose PATH]
 * Tested by tests/infra.dotenv.int.spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// by its path, not @meridian/platform: `make up` runs before any install, when no workspace is linked
// eslint-disable-next-line no-restricted-imports
import { ensureMeshCertificates } from '../services/platform/src/grpc/meshCertificates.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** How each secret of the compose file is made, and what it means (written above it in .env). */
export const GENERATED = {
  JWT_SECRET: {
    meaning: 'signs session and device tokens (identity); at least 32 characters',
    make: () => randomBytes(32).toString('base64url'),
  },
  SECRETS_KEY: {
    meaning: 'AES-256-GCM key sealing tokens and codes carried in events (identity, notification); 64 hex',
    make: () => randomBytes(32).toString('hex'),
  },
  KYC_INTERNAL_TOKEN: {
    meaning: 'shared secret the gateway sends to kyc (x-internal-token); at least 24 characters',
    make: () => randomBytes(24).toString('base64url'),
  },
  INTERNAL_SERVICE_TOKEN: {
    meaning:
      'shared secret services send to identity for the personal-data keys (x-service-token); at least 24 characters',
    make: () => randomBytes(24).toString('base64url'),
  },
  SUPPORT_SECRET_KEY: {
    meaning:
      "HMAC key of support visitors' access tokens and of their emails' blind index; at least 24 characters",
    make: () => randomBytes(24).toString('base64url'),
  },
  REDIS_PASSWORD: {
    meaning:
      "password of Redis' ACL user meridian (every service's REDIS_URL logs in with it); URL-safe, at least 24 characters",
    make: () => randomBytes(24).toString('base64url'),
  },
  ADMIN_EMAIL: {
    meaning: 'the first admin, created at the first start (its emails land in Mailpit)',
    make: () => 'admin@meridian.local',
  },
  ADMIN_PASSWORD: {
    meaning: "the first admin's password; printed once when generated",
    make: () => `Mer-${randomBytes(12).toString('base64url')}-1a`,
  },
};

/** A required variable named like a secret (…_PASSWORD, …_SECRET, …_TOKEN, …_KEY) that GENERATED does not list. */
const SECRET_NAME = /_(PASSWORD|SECRET|TOKEN|KEY)$/;
const generatorOf = (name) =>
  GENERATED[name] ??
  (SECRET_NAME.test(name)
    ? {
        meaning: 'a generated secret (docker-compose.yml requires it)',
        make: () => randomBytes(24).toString('base64url'),
      }
    : undefined);

/** Optional variables of the compose file, written commented out with their meaning. */
export const OPTIONAL = {
  APP_URL: 'public origin: links in emails and the socket.io origin check (default http://localhost:8080)',
  COOKIE_SECURE: '"true" once the site is served over HTTPS (default false: compose serves plain HTTP)',
  GOOGLE_CLIENT_ID: 'enables Google sign-in (default: off)',
  OIDC_PROVIDERS:
    'OpenID Connect providers offered at sign-in, JSON: [{"id":"google","clientId":"…","clientSecret":"…"}] (default: none)',
};

/** The variables compose interpolates: required (`${VAR:?msg}`, `${VAR?msg}`) and optional ones with their default. */
export function composeVariables(text) {
  const required = new Set();
  const optional = new Map();
  for (const m of text.matchAll(/\$\{([A-Z0-9_]+)(?:(:?[?-])([^}]*))?\}/g)) {
    const [, name, op, rest] = m;
    if (op?.endsWith('?')) required.add(name);
    else if (!optional.has(name)) optional.set(name, op?.endsWith('-') ? rest : '');
  }
  for (const name of required) optional.delete(name);
  return { required: [...required], optional };
}

/** KEY=value pairs of a .env (comments, blank lines and `export ` prefixes tolerated). */
export function parseDotenv(text) {
  const out = new Map();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (m) out.set(m[1], m[2].trim().replace(/^(['"])(.*)\1$/, '$2'));
  }
  return out;
}

/**
 * Writes or completes the .env; returns what it did. `env` is the environment to take values from.
 * @returns {{ file: string, created: boolean, added: string[], admin?: { email: string, password: string, generated: boolean } }}
 */
export function ensureDotenv({ envFile, composeFile, env = process.env, now = new Date() }) {
  const { required, optional } = composeVariables(readFileSync(composeFile, 'utf8'));
  const unknown = required.filter((name) => !generatorOf(name) && env[name] === undefined);
  if (unknown.length > 0)
    throw new Error(
      `${relative(root, composeFile)} requires ${unknown.join(', ')}, which scripts/dotenv.mjs cannot generate: set ${unknown.length > 1 ? 'them' : 'it'} in .env or the environment`,
    );
  const created = !existsSync(envFile);
  const existing = created ? new Map() : parseDotenv(readFileSync(envFile, 'utf8'));
  const added = required.filter((name) => !existing.has(name));
  const values = new Map(added.map((name) => [name, env[name] ?? generatorOf(name).make()]));

  const lines = [];
  if (created)
    lines.push(
      `# Meridian's docker compose secrets, generated by \`make up\` (scripts/dotenv.mjs) on ${now.toISOString()}.`,
      '# Git ignores this file and the image builds leave it out. Keep it: changing SECRETS_KEY or',
      '# JWT_SECRET later invalidates sessions and sealed tokens. README.md lists every variable.',
    );
  else if (added.length > 0)
    lines.push('', `# added by \`make up\` (scripts/dotenv.mjs) on ${now.toISOString()}`);
  for (const name of added)
    lines.push(
      `# ${generatorOf(name)?.meaning ?? 'required by docker-compose.yml'}`,
      `${name}=${values.get(name)}`,
    );
  if (created)
    for (const [name, fallback] of optional)
      lines.push(
        `# ${OPTIONAL[name] ?? `optional${fallback ? ` (default ${fallback})` : ''}`}`,
        `# ${name}=${fallback}`,
      );

  if (created) {
    writeFileSync(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
    chmodSync(envFile, 0o600);
  } else if (added.length > 0) appendFileSync(envFile, `${lines.join('\n')}\n`);

  const result = { file: envFile, created, added };
  if (added.includes('ADMIN_PASSWORD'))
    result.admin = {
      email: values.get('ADMIN_EMAIL') ?? existing.get('ADMIN_EMAIL') ?? env.ADMIN_EMAIL ?? '',
      password: values.get('ADMIN_PASSWORD'),
      generated: env.ADMIN_PASSWORD === undefined,
    };
  return result;
}

function main() {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : fallback;
  };
  const composeFile = arg('--compose', join(root, 'docker-compose.yml'));
  const envFile = arg('--env-file', join(dirname(composeFile), '.env'));
  let r;
  let mesh;
  try {
    r = ensureDotenv({ envFile, composeFile });
    mesh = ensureMeshCertificates(join(dirname(composeFile), '.mesh'));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const shown = relative(process.cwd(), r.file) || r.file;
  if (r.created) process.stdout.write(`Wrote ${shown} with generated secrets (${r.added.join(', ')}).\n`);
  else if (r.added.length > 0)
    process.stdout.write(`Added ${r.added.join(', ')} to ${shown}; its other values are unchanged.\n`);
  else process.stdout.write(`${shown} has every variable docker-compose.yml requires; left as it is.\n`);
  const meshShown = relative(process.cwd(), mesh.dir) || mesh.dir;
  if (mesh.made.length > 0)
    process.stdout.write(`Made the mesh certificates in ${meshShown} (${mesh.made.join(', ')}).\n`);
  if (r.admin?.generated)
    process.stdout.write(
      `First admin: ${r.admin.email} / ${r.admin.password}\n` +
        `  (shown this once; it stays in ${shown} as ADMIN_EMAIL / ADMIN_PASSWORD)\n`,
    );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
