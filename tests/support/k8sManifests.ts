/** infra/k8s read as YAML: the kustomizations' files, the documents they reach and the lookups the infra specs share. */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { ROOT, filesUnder, readText, readYamlDocs } from '../infra.env.js';

export const K8S = 'infra/k8s';
export const kustomizations = filesUnder(K8S, /^kustomization\.ya?ml$/);
export const exists = (p: string) => existsSync(join(ROOT, p));
export const isDir = (p: string) => exists(p) && statSync(join(ROOT, p)).isDirectory();
export const kustomizationIn = (dir: string) =>
  ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => join(dir, f)).find(exists);

/** The files a kustomization names: resources, patches, generator inputs (repository-relative). */
export function referencedPaths(file: string): Array<{ field: string; path: string }> {
  const k = readYamlDocs(file)[0]!.doc;
  const dir = dirname(file);
  const rel = (p: string) => normalize(join(dir, p));
  const out: Array<{ field: string; path: string }> = [];
  for (const r of k.resources ?? [])
    if (!/^[a-z]+:\/\//.test(r)) out.push({ field: 'resources', path: rel(r) });
  for (const p of k.patches ?? []) if (p.path) out.push({ field: 'patches', path: rel(p.path) });
  for (const p of k.patchesStrategicMerge ?? [])
    if (typeof p === 'string' && !p.includes('\n'))
      out.push({ field: 'patchesStrategicMerge', path: rel(p) });
  for (const g of [...(k.configMapGenerator ?? []), ...(k.secretGenerator ?? [])]) {
    for (const f of g.files ?? []) out.push({ field: 'files', path: rel(String(f).split('=').pop()!) });
    for (const e of g.envs ?? []) out.push({ field: 'envs', path: rel(e) });
  }
  return out;
}

/** Every YAML document reachable from a kustomization (resources, recursively), and its generators' names. */
export function load(
  dir: string,
  seen = new Set<string>(),
): { docs: any[]; generated: { ConfigMap: Set<string>; Secret: Set<string> } } {
  const out = { docs: [] as any[], generated: { ConfigMap: new Set<string>(), Secret: new Set<string>() } };
  const file = kustomizationIn(dir);
  if (!file || seen.has(file)) return out;
  seen.add(file);
  const k = readYamlDocs(file)[0]!.doc;
  for (const g of k.configMapGenerator ?? []) out.generated.ConfigMap.add(g.name);
  for (const g of k.secretGenerator ?? []) out.generated.Secret.add(g.name);
  for (const { field, path } of referencedPaths(file)) {
    if (field !== 'resources') continue;
    if (isDir(path)) {
      const sub = load(path, seen);
      out.docs.push(...sub.docs);
      for (const kind of ['ConfigMap', 'Secret'] as const)
        for (const n of sub.generated[kind]) out.generated[kind].add(n);
    } else out.docs.push(...readYamlDocs(path).map((d) => d.doc));
  }
  return out;
}

export const base = load(`${K8S}/base`);
export const all = load(K8S);
export const of = (kind: string, docs = base.docs) => docs.filter((d) => d.kind === kind);
export const deployments = of('Deployment');
export const kafka = of('Kafka')[0];
export const mongo = of('MongoDBCommunity')[0];
export const envOf = (d: any): any[] => d.spec.template.spec.containers.flatMap((c: any) => c.env ?? []);
export const envVar = (d: any, name: string) => envOf(d).find((e) => e.name === name);
export const deployment = (name: string) => deployments.find((d) => d.metadata.name === name)!;

/** The secret the MongoDB Community Operator writes for each user (connectionStringSecretName or <resource>-<db>-<user>). */
export const operatorSecrets = new Map<string, string[]>([
  ...(mongo?.spec.users ?? []).map((u: any): [string, string[]] => [
    u.connectionStringSecretName ??
      `${mongo.metadata.name}-${u.db ?? 'admin'}-${u.name}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-'),
    ['connectionString.standard', 'connectionString.standardSrv', 'username', 'password'],
  ]),
  // Strimzi's User Operator writes a Secret named after each KafkaUser
  ...of('KafkaUser').map((u): [string, string[]] => [u.metadata.name, ['password', 'sasl.jaas.config']]),
]);

export const readme = exists('infra/README.md') ? readText('infra/README.md') : '';
export const secretsSection = /^## Secrets\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
