/**
 * `make manifests`: renders every kustomization of infra/k8s (the root, the base and each overlay) with
 * kubectl's built-in kustomize (scripts/k8s/kubectl.ts), validates the output offline against the
 * Kubernetes schemas (scripts/k8s/validate.ts), writes it to artifacts/k8s/<name>.yaml and exits 1 on
 * any problem. tests/infra.kustomize.int.spec.ts runs the same rendering in `make test`.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { findKubectl, kustomizeBuild } from './kubectl.js';
import { validateObjects, type K8sObject, type Report } from './validate.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const K8S_DIR = join(root, 'infra/k8s');

/**
 * Every directory of infra/k8s holding a kustomization that builds on its own, repository-relative:
 * infra/k8s, infra/k8s/base, infra/k8s/overlays/*. A Component (infra/k8s/components/*) builds only
 * inside the overlays that list it, so it is rendered through them.
 */
export function kustomizationDirs(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']
      .map((f) => join(dir, f))
      .find((f) => existsSync(f));
    if (file && !/^kind:\s*Component\s*$/m.test(readFileSync(file, 'utf8'))) out.push(relative(root, dir));
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(K8S_DIR);
  return out.sort();
}

/** The objects one kustomization renders to (repository-relative or absolute directory). */
export function render(dir: string): K8sObject[] {
  return parseObjects(dir, kustomizeBuild(resolve(root, dir)));
}

function parseObjects(dir: string, yaml: string): K8sObject[] {
  return parseAllDocuments(yaml)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${dir}: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((d): d is K8sObject => d != null);
}

/** artifacts/k8s/<name>.yaml: overlays/prod → prod, the root → root. */
export const artifactName = (dir: string) =>
  relative('infra/k8s', dir)
    .replace(/^overlays\//, '')
    .replace(/\//g, '-') || 'root';

function main(): void {
  const kubectl = findKubectl();
  console.log(`kustomize ${kubectl.kustomizeVersion} (kubectl from ${kubectl.source}: ${kubectl.path})`);
  const out = join(root, 'artifacts/k8s');
  mkdirSync(out, { recursive: true });
  let problems = 0;
  for (const dir of kustomizationDirs()) {
    let yaml: string;
    let objects: K8sObject[];
    let report: Report;
    try {
      yaml = kustomizeBuild(join(root, dir));
      objects = parseObjects(dir, yaml);
      report = validateObjects(objects);
    } catch (err) {
      problems++;
      console.log(`✗ ${dir}: ${(err as Error).message}`);
      continue;
    }
    const file = join(out, `${artifactName(dir)}.yaml`);
    writeFileSync(file, yaml);
    problems += report.issues.length;
    console.log(
      `${report.issues.length ? '✗' : '✓'} ${dir}: ${objects.length} objects → ${relative(root, file)}` +
        (report.unschemed.length
          ? ` (${report.unschemed.length} custom resources with no packaged schema)`
          : ''),
    );
    for (const i of report.issues) console.log(`    ${i.object}: ${i.message}`);
  }
  if (problems > 0) {
    console.log(`${problems} problem(s)`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
