/**
 * What the deployment checks (tests/compose.unit.spec.ts, tests/infra.*.unit.spec.ts) share: each
 * deployable's env schema and entry point, sample values for the secrets an operator provides, and
 * the repository's files read as YAML.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { identityEnvSchema } from '@meridian/identity/config';
import { notificationEnvSchema } from '@meridian/notification/config';
import { gatewayEnvSchema } from '@meridian/gateway/config';
import { kycEnvSchema } from '@meridian/kyc/config';
import { ledgerEnvSchema } from '@meridian/ledger/config';
import { investmentEnvSchema } from '@meridian/investment/config';
import { withdrawalEnvSchema } from '@meridian/withdrawal/config';
import { supportEnvSchema } from '@meridian/support/config';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** [name, env schema, entry point]: every Node deployable of compose and infra/k8s. */
export const DEPLOYABLES: Array<[string, z.ZodType, string]> = [
  ['identity', identityEnvSchema, 'services/identity/src/main.ts'],
  ['notification', notificationEnvSchema, 'services/notification/src/main.ts'],
  ['kyc', kycEnvSchema, 'services/kyc/src/main.ts'],
  ['gateway', gatewayEnvSchema, 'gateway/src/main.ts'],
  ['ledger', ledgerEnvSchema, 'services/ledger/src/main.ts'],
  ['investment', investmentEnvSchema, 'services/investment/src/main.ts'],
  ['withdrawal', withdrawalEnvSchema, 'services/withdrawal/src/main.ts'],
  ['support', supportEnvSchema, 'services/support/src/main.ts'],
];

/**
 * What the image runs for an entry point: the image compiles every workspace with tsc and runs the
 * JavaScript (infra/docker/Dockerfile: <workspace>/src/x.ts becomes <workspace>/dist/x.js).
 */
export const compiledEntry = (entry: string) => entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js');

/** The services that own a store and publish `meridian.<service>.events` (not the gateway). */
export const EVENT_SERVICES = [
  'identity',
  'notification',
  'ledger',
  'investment',
  'withdrawal',
  'kyc',
  'support',
] as const;

/** Values an operator gives to the secrets (compose's ${VAR:?}, k8s secretKeyRef), for the schema checks. */
export const SECRET_SAMPLES: Record<string, string> = {
  JWT_SECRET: 'compose-check-jwt-secret-0123456789abcdef',
  SECRETS_KEY: 'ab'.repeat(32),
  ADMIN_EMAIL: 'ops@example.com',
  ADMIN_PASSWORD: 'Compose!Check1',
  KYC_INTERNAL_TOKEN: 'compose-check-kyc-internal-token-0123',
  INTERNAL_SERVICE_TOKEN: 'compose-check-internal-service-token-0123',
  SUPPORT_SECRET_KEY: 'compose-check-support-secret-key-0123456',
  REDIS_PASSWORD: 'compose-check-redis-password-0123',
  KAFKA_BROKER_PASSWORD: 'compose-check-kafka-broker-password-0123',
  ...Object.fromEntries(
    ['IDENTITY', 'NOTIFICATION', 'LEDGER', 'KYC', 'INVESTMENT', 'WITHDRAWAL', 'SUPPORT', 'GATEWAY'].map(
      (p) => [`KAFKA_${p}_PASSWORD`, `compose-check-kafka-${p.toLowerCase()}-password-0123`],
    ),
  ),
  // a KafkaUser's Secret (Strimzi User Operator)
  password: 'compose-check-kafka-password-0123',
  SMTP_URL: 'smtp://mailer:secret@smtp.example.com:587',
  'connectionString.standard':
    'mongodb://meridian:p%40ss@meridian-mongo-0.meridian-mongo-svc.meridian.svc.cluster.local:27017/admin?replicaSet=meridian-mongo&ssl=false',
  APP_URL: 'https://meridian.example',
  OIDC_PROVIDERS: JSON.stringify([
    { id: 'google', clientId: 'meridian.apps.googleusercontent.com', clientSecret: 'compose-check-secret' },
  ]),
};

/**
 * Resolves ${VAR:?msg}, ${VAR:-default} and ${VAR} the way compose would with the variables `set`
 * (a .env); a required or plain variable not in `set` takes its value from SECRET_SAMPLES.
 */
export function interpolate(value: unknown, set: Record<string, string> = {}): string {
  return String(value).replace(
    /\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g,
    (_m, name: string, op?: string, rest?: string) => {
      if (op === '-') return set[name] || (rest ?? '');
      const v = set[name] ?? SECRET_SAMPLES[name];
      if (v !== undefined) return v;
      if (op === '?') throw new Error(`no value for required ${name}`);
      return '';
    },
  );
}

/** The object schema under refinements and transforms. */
export function shapeOf(schema: z.ZodType): Record<string, unknown> {
  let s: any = schema;
  for (let i = 0; i < 10 && s && !s.shape; i++) s = s.in ?? s._def?.in ?? s._def?.schema ?? s.def?.in;
  if (!s?.shape) throw new Error('schema has no object shape');
  return s.shape;
}

/** 'ok', or the schema's complaints as `VAR: message`. */
export function schemaVerdict(schema: z.ZodType, env: Record<string, string>): 'ok' | string[] {
  const result = schema.safeParse(env);
  return result.success ? 'ok' : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

export function readText(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

export interface YamlDoc {
  file: string;
  doc: any;
}

/** Every YAML document of a file (comments and empty documents dropped); throws on a syntax error. */
export function readYamlDocs(path: string): YamlDoc[] {
  return parseAllDocuments(readText(path)).flatMap((d) => {
    if (d.errors.length > 0) throw new Error(`${path}: ${d.errors.map((e) => e.message).join('; ')}`);
    const doc = d.toJS();
    return doc == null ? [] : [{ file: path, doc }];
  });
}

/** Repository-relative paths of the files under `dir` whose name matches. */
export function filesUnder(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs)) {
      const p = join(abs, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.test(entry)) out.push(relative(ROOT, p));
    }
  };
  if (existsSync(join(ROOT, dir))) walk(join(ROOT, dir));
  return out.sort();
}
