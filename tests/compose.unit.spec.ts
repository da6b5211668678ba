/**
 * docker-compose.yml cannot run here (no container engine), so it is kept right by reading it
 * against each service's own config schema: every variable compose sets must be one the service
 * reads, every variable the service requires in production must be set, and the values compose
 * gives (with sample values for the operator's ${VAR:?} secrets) must pass the schema.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { identityEnvSchema } from '../services/identity/src/config.js';
import { notificationEnvSchema } from '../services/notification/src/config.js';
import { gatewayEnvSchema } from '../gateway/src/config.js';
import { kycEnvSchema } from '../services/kyc/src/config.js';
import { ledgerEnvSchema } from '../services/ledger/src/config.js';
import { investmentEnvSchema } from '../services/investment/src/config.js';
import { withdrawalEnvSchema } from '../services/withdrawal/src/config.js';

const SAMPLES: Record<string, string> = {
  JWT_SECRET: 'compose-check-jwt-secret-0123456789abcdef',
  SECRETS_KEY: 'ab'.repeat(32),
  ADMIN_EMAIL: 'ops@example.com',
  ADMIN_PASSWORD: 'Compose!Check1',
  KYC_INTERNAL_TOKEN: 'compose-check-kyc-internal-token-0123',
};

/** Resolves ${VAR:?msg}, ${VAR:-default} and ${VAR} the way compose would, with our sample values. */
function interpolate(value: unknown): string {
  return String(value).replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_m, name: string, op?: string, rest?: string) => {
    if (SAMPLES[name] !== undefined) return SAMPLES[name];
    if (op === '-') return rest ?? '';
    if (op === '?') throw new Error(`no sample value for required ${name}`);
    return '';
  });
}

/** The object schema under refinements and transforms. */
function shapeOf(schema: z.ZodType): Record<string, unknown> {
  let s: any = schema;
  for (let i = 0; i < 10 && s && !s.shape; i++) s = s.in ?? s._def?.in ?? s._def?.schema ?? s.def?.in;
  if (!s?.shape) throw new Error('schema has no object shape');
  return s.shape;
}

const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, { environment?: Record<string, unknown>; build?: { args?: Record<string, string> } }>;
};

const cases: Array<[string, z.ZodType, string]> = [
  ['identity', identityEnvSchema, 'services/identity/src/main.ts'],
  ['notification', notificationEnvSchema, 'services/notification/src/main.ts'],
  ['kyc', kycEnvSchema, 'services/kyc/src/main.ts'],
  ['gateway', gatewayEnvSchema, 'gateway/src/main.ts'],
  ['ledger', ledgerEnvSchema, 'services/ledger/src/main.ts'],
  ['investment', investmentEnvSchema, 'services/investment/src/main.ts'],
  ['withdrawal', withdrawalEnvSchema, 'services/withdrawal/src/main.ts'],
];

describe('docker-compose.yml against the services config schemas', () => {
  it.each(cases)('%s: sets only variables the service reads', (name, schema) => {
    const env = compose.services[name]?.environment ?? {};
    const known = Object.keys(shapeOf(schema));
    const unknown = Object.keys(env).filter((k) => !known.includes(k));
    expect(unknown).toEqual([]);
  });

  it.each(cases)('%s: its values pass the schema in production', (name, schema) => {
    const env = Object.fromEntries(Object.entries(compose.services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
    expect(env.NODE_ENV).toBe('production');
    const result = schema.safeParse(env);
    expect(result.success ? 'ok' : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toBe('ok');
  });

  it.each(cases)('%s: the image runs the service entry point', (name, _schema, entry) => {
    expect(compose.services[name]?.build?.args?.TARGET).toBe(entry);
    expect(readFileSync(new URL(`../${entry}`, import.meta.url), 'utf8')).toMatch(/export async function start|startGateway|start\(/);
  });

  it('the gateway and kyc share KYC_INTERNAL_TOKEN, and the gateway reaches kyc where it listens', () => {
    const gw = compose.services.gateway?.environment ?? {};
    const kyc = compose.services.kyc?.environment ?? {};
    expect(gw.KYC_INTERNAL_TOKEN).toBe(kyc.KYC_INTERNAL_TOKEN);
    expect(String(gw.KYC_GRPC_URL)).toBe(`kyc:${String(kyc.KYC_GRPC_ADDR).split(':').pop()}`);
    expect(String(gw.KYC_HTTP_URL)).toBe(`http://kyc:${String(kyc.KYC_HTTP_ADDR).split(':').pop()}`);
    expect(gw.KAFKA_BROKERS).toBe(kyc.KAFKA_BROKERS);
  });

  it('the gateway, investment and withdrawal reach the money services where they listen', () => {
    const env = (name: string) => compose.services[name]?.environment ?? {};
    const port = (name: string, key: string) => String(env(name)[key]).split(':').pop();
    expect(env('gateway').LEDGER_GRPC_URL).toBe(`ledger:${port('ledger', 'LEDGER_GRPC_ADDR')}`);
    expect(env('gateway').INVESTMENT_GRPC_URL).toBe(`investment:${port('investment', 'INVESTMENT_GRPC_ADDR')}`);
    expect(env('gateway').WITHDRAWAL_GRPC_URL).toBe(`withdrawal:${port('withdrawal', 'WITHDRAWAL_GRPC_ADDR')}`);
    expect(env('investment').LEDGER_GRPC_URL).toBe(`ledger:${port('ledger', 'LEDGER_GRPC_ADDR')}`);
    expect(env('withdrawal').LEDGER_GRPC_URL).toBe(`ledger:${port('ledger', 'LEDGER_GRPC_ADDR')}`);
  });

  it('without KYC_INTERNAL_TOKEN the gateway and kyc refuse to start in production', () => {
    for (const schema of [gatewayEnvSchema, kycEnvSchema] as z.ZodType[]) {
      const result = schema.safeParse({ NODE_ENV: 'production' });
      expect(result.success).toBe(false);
      expect(result.error!.issues.map((i) => i.path.join('.'))).toContain('KYC_INTERNAL_TOKEN');
    }
  });

  it('a schema check catches a variable a service does not read', () => {
    const known = Object.keys(shapeOf(identityEnvSchema));
    expect(known).toContain('JWT_SECRET');
    expect(known).not.toContain('SMTP_URL');
  });
});
