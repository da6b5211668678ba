/**
 * No import cycles in the repository, type-only imports included (eslint's import-x/no-cycle holds the value
 * imports while a file is edited; it skips `import type`). Every TypeScript and JavaScript module git knows of
 * (proto/gen aside) is read with TypeScript's own import scanner; relative specifiers and the workspaces'
 * package exports are resolved to files, and every strongly connected component of more than one module (or a
 * module importing itself) is a cycle.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const files = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts', '*.mjs', '*.js'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.startsWith('proto/gen/') && existsSync(join(root, f)));
const known = new Set(files);

const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const packages = (readJson('package.json').workspaces as string[]).map((dir) => {
  const json = readJson(`${dir}/package.json`) as { name: string; exports?: Record<string, string> };
  return { dir, name: json.name, exports: json.exports ?? {} };
});

/** The module a path names, as the bundler resolution finds it ('./x.js' is x.ts, a folder its index). */
function moduleAt(path: string): string | undefined {
  const base = path.replace(/\.(js|mjs|ts|tsx|mts)$/, '');
  return [path, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}.mjs`, join(base, 'index.ts')].find((c) =>
    known.has(c),
  );
}

/** The file `specifier` imported from `from` resolves to, or undefined outside the repository (a dependency). */
function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return moduleAt(join(dirname(from), specifier));
  for (const { dir, name, exports } of packages) {
    if (specifier !== name && !specifier.startsWith(`${name}/`)) continue;
    const subpath = `.${specifier.slice(name.length)}`;
    for (const [key, target] of Object.entries(exports)) {
      if (key === subpath) return moduleAt(join(dir, target));
      if (key.endsWith('*') && subpath.startsWith(key.slice(0, -1)))
        return moduleAt(join(dir, target.replace('*', subpath.slice(key.length - 1))));
    }
  }
  return undefined;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles.map((i) => resolveImport(file, i.fileName));
    graph.set(file, [...new Set(targets.filter((t): t is string => t !== undefined))]);
  }
  return graph;
}

/** Tarjan's strongly connected components that are cycles, each as its sorted files. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('imports', () => {
  it('resolve: the scan finds the modules a known import chain names', () => {
    const graph = importGraph();
    expect(graph.get('bench/run.ts')).toContain('bench/results.ts');
    expect(graph.get('bench/children.ts')).toContain('services/ledger/src/testing/ledgerProcess.ts');
    expect(graph.get('services/platform/src/grpc/index.ts')).toContain(
      'services/platform/src/grpc/client.ts',
    );
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('form no cycle anywhere, type-only imports included', () => {
    expect(cycles(importGraph())).toEqual([]);
  });
});
