// Every rule the code cites is in the repository: "spec §N" is a section of docs/product-spec.md,
// "architecture.md §N" a section of docs/architecture.md, and no source file points outside the
// repository (the team's shared DESIGN.md or ../shared). The spec's copy is the shared spec word for word
// wherever the shared one is present beside the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['services', 'gateway', 'web/src', 'tests', 'scripts', 'bench', 'infra', 'proto'];
const SOURCE_FILE = /\.(ts|tsx|mjs|js|css|ya?ml|proto|sh)$|^Makefile$|^Dockerfile/;
const SKIP_DIRS = new Set(['node_modules', 'gen', 'dist', 'data', '.cache']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) sourceFiles(path, out);
    } else if (SOURCE_FILE.test(name)) out.push(path);
  }
  return out;
}

/** The section numbers ("3", "3a", "7") of a markdown document's level-2 headings "## N. Title". */
function sectionsOf(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8');
  return new Set([...text.matchAll(/^## (\d+[a-z]?)\. /gm)].map((m) => m[1]!));
}

const files = [...SOURCE_DIRS.flatMap((d) => sourceFiles(join(root, d))), join(root, 'Makefile')].filter(
  (f) => relative(root, f) !== 'tests/docs.unit.spec.ts',
);

describe('what the code cites is in the repository', () => {
  it('finds source files to check', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no source file points at the shared DESIGN.md, STYLE.md or ../shared', () => {
    const outside = files.filter((f) => /DESIGN\.md|STYLE\.md|\.\.\/shared\b/.test(readFileSync(f, 'utf8')));
    expect(outside.map((f) => relative(root, f))).toEqual([]);
  });

  it('every "spec §N" and "architecture.md §N" names a section that exists', () => {
    const spec = sectionsOf('docs/product-spec.md');
    const architecture = sectionsOf('docs/architecture.md');
    expect(spec.size).toBeGreaterThan(5);
    expect(architecture.size).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\b(spec|architecture\.md) §\s?(\d+[a-z]?)/g)) {
        const known = m[1] === 'spec' ? spec : architecture;
        if (!known.has(m[2]!)) missing.push(`${relative(root, f)}: ${m[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  const shared = join(root, '..', 'shared', 'spec', 'product-spec.md');
  if (!existsSync(shared))
    console.log(`[skip] docs/product-spec.md against the shared spec: no ${shared} beside this checkout`);
  it.runIf(existsSync(shared))('docs/product-spec.md is the shared spec word for word', () => {
    const copy = readFileSync(join(root, 'docs/product-spec.md'), 'utf8').replace(/^<!--[\s\S]*?-->\n/, '');
    expect(copy).toBe(readFileSync(shared, 'utf8'));
  });
  if (!existsSync(shared)) {
    console.log(`docs.unit.spec: skipping the spec copy check: ${shared} is not beside this checkout`);
  }
});
