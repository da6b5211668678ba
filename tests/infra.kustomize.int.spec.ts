/**
 * Every kustomization of infra/k8s (the root, the base, overlays/dev, overlays/prod) built by kubectl's
 * built-in kustomize v5 (scripts/k8s/kubectl.ts: the machine's kubectl, or the official binary an npm
 * package ships) and its output checked offline: the Kubernetes schemas (scripts/k8s/validate.ts), each
 * container's environment against its service's config schema in production, MongoDB credentials
 * from the operator's secret, non-root containers on read-only root filesystems, and what each overlay
 * is for. `make manifests` renders the same into artifacts/k8s.
 */
import { describe, expect, it } from 'vitest';
import { findKubectl } from '../scripts/k8s/kubectl.js';
import { kustomizationDirs, render } from '../scripts/k8s/render.js';
import { KNOWN_UNSCHEMED, validateObjects, type K8sObject } from '../scripts/k8s/validate.js';
import {
  DEPLOYABLES,
  compiledEntry,
  EVENT_SERVICES,
  SECRET_SAMPLES,
  readText,
  schemaVerdict,
  shapeOf,
} from './infra.env.js';

const dirs = kustomizationDirs();
const cache = new Map<string, any[]>();
/** The rendered objects of a kustomization (rendered once per run). */
const built = (dir: string): any[] => {
  if (!cache.has(dir)) cache.set(dir, render(dir));
  return cache.get(dir)!;
};
const of = (dir: string, kind: string) => built(dir).filter((o) => o.kind === kind);
const deployment = (dir: string, name: string) => of(dir, 'Deployment').find((d) => d.metadata.name === name);
const podSpec = (d: any) => d.spec.template.spec;
const containersOf = (d: any): any[] => [...(podSpec(d).initContainers ?? []), ...podSpec(d).containers];
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
]);

/** The secret the MongoDB Community Operator writes for each user of a MongoDBCommunity resource. */
function operatorSecrets(objects: any[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of objects.filter((o) => o.kind === 'MongoDBCommunity'))
    for (const u of m.spec.users ?? [])
      out.set(
        u.connectionStringSecretName ??
          `${m.metadata.name}-${u.db ?? 'admin'}-${u.name}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-'),
        ['connectionString.standard', 'connectionString.standardSrv', 'username', 'password'],
      );
  return out;
}

const readme = readText('infra/README.md');
const secretsSection = /^## Secrets\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';

describe('infra/k8s built by kustomize', () => {
  it(
    'has a kubectl with kustomize v5 (the machine’s, or the pinned one from the npm registry)',
    { timeout: 300_000 },
    () => {
      const kubectl = findKubectl();
      expect(Number(/^v?(\d+)/.exec(kubectl.kustomizeVersion)?.[1])).toBeGreaterThanOrEqual(5);
    },
  );

  it('holds the root, the base and the dev and prod overlays; the root deploys dev', () => {
    expect(dirs).toEqual(
      expect.arrayContaining([
        'infra/k8s',
        'infra/k8s/base',
        'infra/k8s/overlays/dev',
        'infra/k8s/overlays/prod',
      ]),
    );
    const names = (dir: string) =>
      built(dir)
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort();
    expect(names('infra/k8s')).toEqual(names('infra/k8s/overlays/dev'));
  });

  it.each(dirs)(
    '%s: builds, and every object passes the Kubernetes schemas (values and field names)',
    (dir) => {
      const report = validateObjects(built(dir));
      expect(report.issues).toEqual([]);
      for (const o of built(dir).filter((x) => report.unschemed.includes(`${x.kind}/${x.metadata.name}`)))
        expect(KNOWN_UNSCHEMED[o.apiVersion], `${o.apiVersion} ${o.kind}`).toContain(o.kind);
    },
  );

  it('the schema check rejects what an API server would: an unknown field, a wrong type, a missing required field', () => {
    const objects = structuredClone(built('infra/k8s/overlays/prod')) as K8sObject[];
    const d: any = objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'gateway');
    podSpec(d).containers[0].readinessprobe = podSpec(d).containers[0].readinessProbe;
    d.spec.replicas = 'two';
    const s: any = objects.find((o) => o.kind === 'Service' && o.metadata?.name === 'gateway');
    delete s.spec.ports[0].port;
    const messages = validateObjects(objects).issues.map((i) => `${i.object}: ${i.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Deployment\/gateway: spec\.template\.spec\.containers\[0\]\.readinessprobe: unknown field/,
        ),
        expect.stringMatching(/^Deployment\/gateway: .*replicas must be integer/),
        expect.stringMatching(/^Service\/gateway: .*must have required property port/),
      ]),
    );
  });

  it.each(dirs)(
    '%s: every namespaced object lands in namespace meridian; all twelve topics are declared',
    (dir) => {
      const outside = built(dir)
        .filter((o) => !CLUSTER_SCOPED.has(o.kind) && o.metadata.namespace !== 'meridian')
        .map((o) => `${o.kind}/${o.metadata.name}`);
      expect(outside).toEqual([]);
      expect(of(dir, 'KafkaTopic')).toHaveLength(2 * EVENT_SERVICES.length);
    },
  );

  it.each(dirs)(
    '%s: pods read generated config maps by their hashed names, and only keys those define',
    (dir) => {
      const maps = new Map(of(dir, 'ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]));
      expect([...maps.keys()].some((n) => /^meridian-config-[a-z0-9]{10}$/.test(n))).toBe(true);
      for (const d of of(dir, 'Deployment'))
        for (const c of containersOf(d))
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.configMapKeyRef;
            if (!ref) continue;
            expect(maps.has(ref.name), `${d.metadata.name} ${e.name}: no ConfigMap ${ref.name}`).toBe(true);
            expect(Object.keys(maps.get(ref.name)!), `${d.metadata.name} ${e.name}`).toContain(ref.key);
          }
    },
  );

  it.each(dirs)(
    '%s: every secret a pod, a job, the Gateway or an operator resource reads is rendered, written by the operator, or documented',
    (dir) => {
      const objects = built(dir);
      const byOperator = operatorSecrets(objects);
      const refs: Array<{ name: string; key?: string; by: string }> = [];
      for (const d of of(dir, 'Deployment'))
        for (const c of containersOf(d)) {
          for (const e of c.env ?? [])
            if (e.valueFrom?.secretKeyRef)
              refs.push({ ...e.valueFrom.secretKeyRef, by: `${d.metadata.name} ${e.name}` });
          for (const e of c.envFrom ?? [])
            if (e.secretRef) refs.push({ name: e.secretRef.name, by: d.metadata.name });
        }
      for (const j of of(dir, 'CronJob'))
        for (const c of j.spec.jobTemplate.spec.template.spec.containers)
          for (const e of c.env ?? [])
            if (e.valueFrom?.secretKeyRef)
              refs.push({ ...e.valueFrom.secretKeyRef, by: `CronJob ${j.metadata.name} ${e.name}` });
      for (const g of of(dir, 'Gateway'))
        for (const l of g.spec.listeners)
          for (const ref of l.tls?.certificateRefs ?? [])
            refs.push({ name: ref.name, by: `Gateway ${g.metadata.name} listener ${l.name}` });
      for (const m of of(dir, 'MongoDBCommunity'))
        for (const u of m.spec.users)
          refs.push({
            name: u.passwordSecretRef.name,
            key: u.passwordSecretRef.key ?? 'password',
            by: 'MongoDBCommunity',
          });
      const problems: string[] = [];
      for (const r of refs) {
        if (of(dir, 'Secret').some((s) => s.metadata.name === r.name)) continue;
        const keys = byOperator.get(r.name);
        if (keys) {
          if (r.key && !keys.includes(r.key))
            problems.push(`${r.by}: the operator's ${r.name} has no ${r.key}`);
          continue;
        }
        if (!secretsSection.includes(`\`${r.name}\``))
          problems.push(`${r.by}: ${r.name} is not in infra/README.md "Secrets"`);
        else if (r.key && !secretsSection.includes(`\`${r.key}\``))
          problems.push(`${r.by}: ${r.name} key ${r.key} undocumented`);
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(dirs)(
    '%s: every container runs as a non-root user, without privilege escalation, on a read-only root filesystem',
    (dir) => {
      const problems: string[] = [];
      for (const d of of(dir, 'Deployment')) {
        const pod = podSpec(d).securityContext ?? {};
        for (const c of containersOf(d)) {
          const sc = c.securityContext ?? {};
          const who = `${d.metadata.name}/${c.name}`;
          if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true)
            problems.push(`${who}: runAsNonRoot is not true`);
          if (!((sc.runAsUser ?? pod.runAsUser) > 0)) problems.push(`${who}: no numeric non-zero runAsUser`);
          if (sc.readOnlyRootFilesystem !== true) problems.push(`${who}: root filesystem is writable`);
          if (sc.allowPrivilegeEscalation !== false) problems.push(`${who}: privilege escalation allowed`);
          if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${who}: capabilities not dropped`);
          if (sc.capabilities?.add?.length) problems.push(`${who}: adds ${sc.capabilities.add.join(', ')}`);
          // Node (tsx caches compiled files) and nginx (pid, temp files) write under /tmp
          if (/meridian\/(node|web)/.test(c.image)) {
            const mount = (c.volumeMounts ?? []).find((m: any) => m.mountPath === '/tmp');
            const volume = (podSpec(d).volumes ?? []).find((v: any) => v.name === mount?.name);
            if (!volume?.emptyDir) problems.push(`${who}: /tmp is not an emptyDir`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );

  const cases = dirs.flatMap((dir) =>
    DEPLOYABLES.map(([name, schema, entry]) => [dir, name, schema, entry] as const),
  );
  it.each(cases)(
    '%s: %s sets only what its service reads, and passes its config schema in production',
    (dir, name, schema, entry) => {
      const d = deployment(dir, name);
      expect(d, `${dir} renders no Deployment ${name}`).toBeDefined();
      const container = podSpec(d).containers[0];
      const maps = new Map(of(dir, 'ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]));
      const env: Record<string, string> = {};
      for (const e of container.env ?? []) {
        let v: string | undefined;
        if (e.value !== undefined)
          v = String(e.value).replace(/\$\(([A-Z0-9_]+)\)/g, (_m, n: string) => env[n] ?? '');
        else if (e.valueFrom?.configMapKeyRef)
          v = maps.get(e.valueFrom.configMapKeyRef.name)?.[e.valueFrom.configMapKeyRef.key];
        else if (e.valueFrom?.secretKeyRef) v = SECRET_SAMPLES[e.valueFrom.secretKeyRef.key];
        expect(v, `${e.name}: no value, and no sample for the secret key it reads`).toBeDefined();
        env[e.name] = v!;
      }
      expect(env.TARGET).toBe(compiledEntry(entry));
      const known = Object.keys(shapeOf(schema));
      // a secret composed into another variable as $(VAR) (REDIS_PASSWORD into REDIS_URL) is no setting of its own
      const composed = new Set(
        (container.env ?? []).flatMap((e: any) =>
          [...String(e.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1]),
        ),
      );
      expect(
        Object.keys(env).filter((k) => k !== 'TARGET' && !known.includes(k) && !composed.has(k)),
      ).toEqual([]);
      expect(env.NODE_ENV).toBe('production');
      expect(schemaVerdict(schema, env)).toBe('ok');
    },
  );

  it.each(dirs)(
    '%s: each service with a store logs in to MongoDB with the operator’s connection string (credentials included)',
    (dir) => {
      const secrets = operatorSecrets(built(dir));
      expect(secrets.size).toBeGreaterThan(0);
      for (const name of EVENT_SERVICES) {
        const e = (podSpec(deployment(dir, name)).containers[0].env ?? []).find(
          (x: any) => x.name === 'MONGO_URL',
        );
        expect(e?.valueFrom?.secretKeyRef, `${name}: MONGO_URL is not read from a secret`).toBeDefined();
        expect(secrets.has(e.valueFrom.secretKeyRef.name), `${name}: ${e.valueFrom.secretKeyRef.name}`).toBe(
          true,
        );
        expect(e.valueFrom.secretKeyRef.key).toMatch(/^connectionString\.standard(Srv)?$/);
      }
    },
  );
});

describe('infra/k8s overlays do what they are for', () => {
  const config = (dir: string) =>
    of(dir, 'ConfigMap').find((c) => c.metadata.name.startsWith('meridian-config-')).data;
  const envOf = (dir: string, name: string) =>
    Object.fromEntries((podSpec(deployment(dir, name)).containers[0].env ?? []).map((e: any) => [e.name, e]));

  it('dev: APP_URL on localhost, cookies without Secure, emails to the overlay’s Mailpit', () => {
    const dir = 'infra/k8s/overlays/dev';
    expect(config(dir).APP_URL).toBe('http://localhost:8080');
    expect(envOf(dir, 'gateway').COOKIE_SECURE.value).toBe('false');
    expect(envOf(dir, 'notification').SMTP_URL).toEqual({ name: 'SMTP_URL', value: 'smtp://mailpit:1025' });
    expect(
      of(dir, 'Service')
        .find((s) => s.metadata.name === 'mailpit')
        .spec.ports.map((p: any) => p.port),
    ).toContain(1025);
  });

  it('prod: pinned images from a registry, an https APP_URL served by the Gateway with TLS, http redirected, Secure cookies', () => {
    const dir = 'infra/k8s/overlays/prod';
    for (const d of of(dir, 'Deployment'))
      for (const c of containersOf(d)) {
        expect(c.image, `${d.metadata.name}`).not.toMatch(/:latest$|^[^:]+$/);
        if (/meridian\//.test(c.image))
          expect(c.image, d.metadata.name).toMatch(/^[a-z0-9.-]+\.[a-z]+(:\d+)?\//);
      }
    const appUrl = new URL(config(dir).APP_URL);
    expect(appUrl.protocol).toBe('https:');
    expect(of(dir, 'Ingress')).toEqual([]);
    const gateway = of(dir, 'Gateway')[0];
    const https = gateway.spec.listeners.find((l: any) => l.protocol === 'HTTPS');
    expect(https.hostname).toBe(appUrl.hostname);
    expect(https.tls.certificateRefs.map((r: any) => r.name)).toEqual(['meridian-tls']);
    const routes = of(dir, 'HTTPRoute');
    const app = routes.find((r) => r.metadata.name === 'meridian');
    expect(app.spec.hostnames).toEqual([appUrl.hostname]);
    expect(app.spec.parentRefs).toEqual([{ name: gateway.metadata.name, sectionName: https.name }]);
    expect(app.spec.rules.length).toBeGreaterThan(1);
    const http = gateway.spec.listeners.find((l: any) => l.protocol === 'HTTP');
    const redirect = routes.find((r) => r.spec.parentRefs.some((p: any) => p.sectionName === http.name));
    expect(redirect.spec.rules[0].filters[0]).toEqual({
      type: 'RequestRedirect',
      requestRedirect: { scheme: 'https', statusCode: 301 },
    });
    expect(envOf(dir, 'gateway').COOKIE_SECURE.value).toBe('true');
  });

  it('prod: a PodDisruptionBudget keeps one pod of every Deployment during a drain', () => {
    const dir = 'infra/k8s/overlays/prod';
    const budgets = of(dir, 'PodDisruptionBudget');
    const minReplicas = (d: any) =>
      of(dir, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === d.metadata.name)?.spec
        .minReplicas ?? d.spec.replicas;
    const scaled = of(dir, 'Deployment').filter((x) => minReplicas(x) > 1);
    expect(scaled.length).toBeGreaterThanOrEqual(DEPLOYABLES.length);
    for (const d of scaled) {
      const labels = d.spec.template.metadata.labels;
      const pdb = budgets.find((b) =>
        Object.entries(b.spec.selector.matchLabels).every(([k, v]) => labels[k] === v),
      );
      expect(pdb, `no PodDisruptionBudget selects ${d.metadata.name}`).toBeDefined();
      expect(pdb.spec.minAvailable).toBeLessThan(minReplicas(d));
    }
  });
});

describe('infra/k8s: spreading and the observability component, as rendered', () => {
  it.each(dirs)(
    '%s: the backup jobs run as a non-root user, without privilege escalation, on a read-only root filesystem',
    (dir) => {
      const jobs = of(dir, 'CronJob');
      expect(jobs.map((j) => j.metadata.name).sort()).toEqual(['mongo-backup', 'mongo-keys-backup']);
      for (const j of jobs) {
        const pod = j.spec.jobTemplate.spec.template.spec;
        expect(pod.securityContext.runAsNonRoot, j.metadata.name).toBe(true);
        expect(pod.securityContext.runAsUser, j.metadata.name).toBeGreaterThan(0);
        for (const c of pod.containers) {
          expect(c.securityContext, `${j.metadata.name}/${c.name}`).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.resources.limits.memory, `${j.metadata.name}/${c.name}`).toBeDefined();
        }
      }
    },
  );

  const overlays = ['infra/k8s/overlays/dev', 'infra/k8s/overlays/prod'];
  const envOf = (dir: string, name: string) =>
    Object.fromEntries((podSpec(deployment(dir, name)).containers[0].env ?? []).map((e: any) => [e.name, e]));

  it.each(dirs)(
    '%s: every Deployment that runs several pods (autoscaled) spreads them over zones and nodes',
    (dir) => {
      const scaled = new Set(of(dir, 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name));
      expect(scaled.size).toBeGreaterThan(DEPLOYABLES.length);
      for (const d of of(dir, 'Deployment').filter((x) => scaled.has(x.metadata.name))) {
        const spread = podSpec(d).topologySpreadConstraints ?? [];
        expect(spread.map((c: any) => c.topologyKey).sort(), d.metadata.name).toEqual([
          'kubernetes.io/hostname',
          'topology.kubernetes.io/zone',
        ]);
        for (const c of spread) {
          expect(c.matchLabelKeys, d.metadata.name).toContain('app.kubernetes.io/name');
          expect(c.whenUnsatisfiable).toBe('ScheduleAnyway');
        }
      }
    },
  );

  it.each(overlays)(
    '%s: every Node process sends traces to the collector, which exports them to Jaeger',
    (dir) => {
      const service = (name: string) => of(dir, 'Service').find((s) => s.metadata.name === name);
      for (const [name] of DEPLOYABLES) {
        const endpoint = new URL(envOf(dir, name).OTEL_EXPORTER_OTLP_ENDPOINT?.value ?? 'http://none');
        expect(endpoint.hostname, name).toBe('otel-collector');
        expect(service('otel-collector').spec.ports.map((p: any) => p.port)).toContain(Number(endpoint.port));
      }
      const configMap = of(dir, 'ConfigMap').find((c) => c.metadata.name.startsWith('otel-collector-'));
      expect(configMap.data['collector.yml']).toBe(readText('infra/otel/collector.yml'));
      const collector = deployment(dir, 'otel-collector');
      expect(podSpec(collector).volumes.find((v: any) => v.configMap)?.configMap.name).toBe(
        configMap.metadata.name,
      );
      expect(service('jaeger').spec.ports.map((p: any) => p.port)).toContain(4317);
      expect(deployment(dir, 'jaeger')).toBeDefined();
      expect(of(dir, 'PrometheusRule').map((r) => r.metadata.name)).toEqual(['meridian-alerts']);
      // the Redis exporter is a second container of Redis's pod, not in place of Redis
      expect(containersOf(deployment(dir, 'redis')).map((c: any) => c.name)).toEqual([
        'redis',
        'redis-exporter',
      ]);
    },
  );
});
