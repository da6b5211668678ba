/**
 * docker-compose.yml cannot run here (no container engine), so it is kept right by reading it
 * against each service's own config schema: every variable compose sets must be one the service
 * reads, every variable the service requires in production must be set, and the values compose
 * gives (with sample values for the operator's ${VAR:?} secrets) must pass the schema.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { gatewayEnvSchema } from '../gateway/src/config.js';
import { identityEnvSchema } from '../services/identity/src/config.js';
import { kycEnvSchema } from '../services/kyc/src/config.js';
import {
  DEPLOYABLES,
  EVENT_SERVICES,
  filesUnder,
  interpolate,
  readText,
  readYamlDocs,
  schemaVerdict,
  shapeOf,
} from './infra.env.js';

interface ComposeService {
  image?: string;
  environment?: Record<string, unknown>;
  build?: { args?: Record<string, string> };
  volumes?: string[];
  depends_on?: Record<string, unknown>;
}
const compose = parse(readText('docker-compose.yml')) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};

const cases = DEPLOYABLES;

describe('docker-compose.yml against the services config schemas', () => {
  it.each(cases)('%s: sets only variables the service reads', (name, schema) => {
    const env = compose.services[name]?.environment ?? {};
    const known = Object.keys(shapeOf(schema));
    const unknown = Object.keys(env).filter((k) => !known.includes(k));
    expect(unknown).toEqual([]);
  });

  it.each(cases)('%s: its values pass the schema in production', (name, schema) => {
    const env = Object.fromEntries(
      Object.entries(compose.services[name]?.environment ?? {}).map(([k, v]) => [k, interpolate(v)]),
    );
    expect(env.NODE_ENV).toBe('production');
    expect(schemaVerdict(schema, env)).toBe('ok');
  });

  it.each(cases)('%s: the image runs the service entry point', (name, _schema, entry) => {
    expect(compose.services[name]?.build?.args?.TARGET).toBe(entry);
    expect(readText(entry)).toMatch(/export async function start|startGateway|start\(/);
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
    expect(env('gateway').INVESTMENT_GRPC_URL).toBe(
      `investment:${port('investment', 'INVESTMENT_GRPC_ADDR')}`,
    );
    expect(env('gateway').WITHDRAWAL_GRPC_URL).toBe(
      `withdrawal:${port('withdrawal', 'WITHDRAWAL_GRPC_ADDR')}`,
    );
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

describe('docker-compose.yml: the Kafka broker', () => {
  const kafka = compose.services.kafka!;
  const env = kafka.environment ?? {};
  const k8sTopics = () =>
    filesUnder('infra/k8s/base', /\.ya?ml$/)
      .flatMap((f) => readYamlDocs(f))
      .map((d) => d.doc)
      .filter((d) => d.kind === 'KafkaTopic');

  it('keeps its data in the volume mounted for it, so recreating the container loses nothing', () => {
    const logDirs = String(env.KAFKA_LOG_DIRS ?? '')
      .split(',')
      .filter(Boolean);
    expect(logDirs.length, 'KAFKA_LOG_DIRS is unset: the image writes under /tmp').toBeGreaterThan(0);
    const mounts = (kafka.volumes ?? []).map((v) => {
      const [source, target] = String(v).split(':');
      return { source, target };
    });
    for (const dir of logDirs) {
      const mount = mounts.find((m) => dir === m.target || dir.startsWith(`${m.target}/`));
      expect(mount, `${dir} is on no mounted volume`).toBeDefined();
      // a named volume declared at the top level (not a bind mount of a host path, not a tmpfs)
      expect(Object.keys(compose.volumes ?? {})).toContain(mount!.source);
      expect(dir.startsWith('/tmp')).toBe(false);
    }
  });

  it('creates no topic on first use; the services create theirs with the partitions infra/k8s declares', () => {
    expect(String(env.KAFKA_AUTO_CREATE_TOPICS_ENABLE)).toBe('false');
    expect(k8sTopics().length).toBeGreaterThan(0);
    for (const topic of k8sTopics())
      expect(Number(env.KAFKA_NUM_PARTITIONS), topic.metadata.name).toBe(topic.spec.partitions);
  });

  it('keeps every event: no time or size limit by default (consumers rebuild read models from the beginning)', () => {
    expect(Number(env.KAFKA_LOG_RETENTION_MS)).toBe(-1);
    // log.retention.ms wins over hours and minutes; a leftover hours value would only mislead
    for (const key of [
      'KAFKA_LOG_RETENTION_HOURS',
      'KAFKA_LOG_RETENTION_MINUTES',
      'KAFKA_LOG_RETENTION_BYTES',
    ]) {
      if (env[key] !== undefined) expect(Number(env[key]), key).toBe(-1);
    }
  });

  it('runs the Kafka version infra/k8s runs', () => {
    const k8sKafka = readYamlDocs('infra/k8s/base/data.yaml').find((d) => d.doc.kind === 'Kafka')!.doc;
    expect(kafka.image).toBe(`apache/kafka:${k8sKafka.spec.kafka.version}`);
  });

  it('every service that publishes events reaches it', () => {
    for (const name of EVENT_SERVICES)
      expect(compose.services[name]?.environment?.KAFKA_BROKERS, name).toBe('kafka:9092');
    expect(env.KAFKA_ADVERTISED_LISTENERS).toBe('PLAINTEXT://kafka:9092');
  });
});

describe('docker-compose.yml: the gateway behind the web container', () => {
  it('nginx forwards the client address and the gateway trusts that one hop (else rate limits count every user as one)', () => {
    const nginx = readText('infra/docker/nginx.conf');
    expect(nginx).toMatch(
      /location \/api\/ \{[^}]*proxy_pass http:\/\/gateway:8080;[^}]*X-Forwarded-For \$proxy_add_x_forwarded_for/,
    );
    expect(compose.services.gateway?.environment?.TRUST_PROXY).toBe('1');
  });
});
