/**
 * Offline validation of rendered Kubernetes manifests against the API schemas that npm packages ship:
 *
 * - values: the validators kubernetes-models generates from the Kubernetes OpenAPI (required fields,
 *   types, formats such as int-or-string), and @kubernetes-models/prometheus-operator for the
 *   monitoring.coreos.com kinds, @kubernetes-models/cert-manager for the cert-manager.io ones,
 *   @kubernetes-models/gateway-api for the Gateway API's gateway.networking.k8s.io (Gateway, HTTPRoute);
 * - field names: the same packages' type declarations, checked by the TypeScript compiler with
 *   `satisfies` (excess-property checks reject a field the API does not know, as `kubectl apply`'s
 *   strict field validation would);
 * - custom resources no package describes (Strimzi's kafka.strimzi.io, the MongoDB Community
 *   Operator's mongodbcommunity.mongodb.com) are accepted by kind from KNOWN_UNSCHEMED and reported as
 *   such, never silently.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface Issue {
  object: string;
  message: string;
}

/** Custom resources whose operators publish no npm package with their schema: [apiVersion, kinds]. */
export const KNOWN_UNSCHEMED: Record<string, string[]> = {
  'kafka.strimzi.io/v1beta2': ['Kafka', 'KafkaNodePool', 'KafkaTopic', 'KafkaUser'],
  'mongodbcommunity.mongodb.com/v1': ['MongoDBCommunity'],
};

/** Packages (module prefix) holding a model per kind, by API group ('' = core). */
const MODEL_PACKAGES: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'cert-manager.io': '@kubernetes-models/cert-manager',
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
};

export const describeObject = (o: K8sObject) => `${o.kind}/${o.metadata?.name ?? '?'}`;

/** The module of a kind's model: kubernetes-models/apps/v1/Deployment, kubernetes-models/v1/Service, ... */
function modelModule(o: K8sObject): string {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  return `${MODEL_PACKAGES[group!] ?? 'kubernetes-models'}/${group ? `${group}/` : ''}${version}/${o.kind}`;
}

type ModelClass = new (data: unknown) => { validate(): void };

function modelOf(o: K8sObject): ModelClass | undefined {
  try {
    return (require(modelModule(o)) as Record<string, ModelClass>)[o.kind];
  } catch {
    return undefined;
  }
}

function isUnschemed(o: K8sObject): boolean {
  return KNOWN_UNSCHEMED[o.apiVersion]?.includes(o.kind) ?? false;
}

/** Values against the generated OpenAPI validators. */
function validateValues(objects: K8sObject[]): Issue[] {
  const issues: Issue[] = [];
  for (const o of objects) {
    if (!o || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
      issues.push({ object: '?', message: 'not a Kubernetes object (apiVersion and kind)' });
      continue;
    }
    if (!o.metadata?.name) issues.push({ object: describeObject(o), message: 'metadata.name is missing' });
    if (isUnschemed(o)) continue;
    const Model = modelOf(o);
    if (!Model) {
      issues.push({
        object: describeObject(o),
        message: `no schema for ${o.apiVersion} ${o.kind} (not in kubernetes-models, not in KNOWN_UNSCHEMED)`,
      });
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      issues.push({ object: describeObject(o), message: (err as Error).message });
    }
  }
  return issues;
}

/**
 * Field names: each object walked along its kind's declared type (the TypeScript compiler reads the
 * package's declarations); every key the type does not declare is reported, at any depth. Maps with an
 * index signature (labels, annotations, data) take any key.
 */
function validateFields(objects: K8sObject[]): Issue[] {
  const checked = objects.filter((o) => o && !isUnschemed(o) && modelOf(o));
  if (checked.length === 0) return [];
  // a virtual file in the repository's .cache, so the packages resolve from its node_modules
  const file = join(root, '.cache/k8s-kinds.check.ts');
  const kinds = [...new Set(checked.map(modelModule))];
  const text = kinds
    .map((m, i) => `import type { I${m.split('/').pop()} as K${i} } from '${m}';\nexport type T${i} = K${i};`)
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    resolve(name) === file ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const source = program.getSourceFile(file)!;
  const broken = ts.getPreEmitDiagnostics(program, source);
  if (broken.length > 0)
    throw new Error(`schema types: ${ts.flattenDiagnosticMessageText(broken[0]!.messageText, ' ')}`);
  const checker = program.getTypeChecker();
  const typeOf = new Map<string, ts.Type>();
  for (const stmt of source.statements)
    if (ts.isTypeAliasDeclaration(stmt))
      typeOf.set(kinds[Number(stmt.name.text.slice(1))]!, checker.getTypeAtLocation(stmt.name));

  const issues: Issue[] = [];
  const walk = (value: unknown, type: ts.Type, path: string, object: string) => {
    if (value === null || typeof value !== 'object') return;
    const t = checker.getNonNullableType(type);
    const members = t.isUnion() ? t.types : [t];
    if (Array.isArray(value)) {
      const element = members.map((m) => m.getNumberIndexType()).find(Boolean);
      if (element) value.forEach((v, i) => walk(v, element, `${path}[${i}]`, object));
      return;
    }
    const shapes = members.filter((m) => m.flags & ts.TypeFlags.Object);
    if (shapes.length === 0) return;
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const prop = shapes.map((m) => m.getProperty(key)).find(Boolean);
      const map = prop ? undefined : shapes.map((m) => m.getStringIndexType()).find(Boolean);
      if (prop) walk(v, checker.getTypeOfSymbol(prop), at, object);
      else if (map) walk(v, map, at, object);
      else {
        const name = checker.typeToString(t);
        issues.push({
          object,
          message: `${at}: unknown field${name.length <= 60 ? ` (${name} has none)` : ''}`,
        });
      }
    }
  };
  for (const o of checked) walk(o, typeOf.get(modelModule(o))!, '', describeObject(o));
  return issues;
}

export interface Report {
  issues: Issue[];
  /** Objects accepted by kind only (no packaged schema): 'Kafka/meridian-kafka', ... */
  unschemed: string[];
}

/** Every issue of the objects, and which ones no schema covered. */
export function validateObjects(objects: K8sObject[]): Report {
  return {
    issues: [...validateValues(objects), ...validateFields(objects)],
    unschemed: objects.filter((o) => o && isUnschemed(o)).map(describeObject),
  };
}
