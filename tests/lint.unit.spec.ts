// The lint config holds the layers: each case lints a snippet as if it stood at a path in the repo,
// through ESLint's Node API with the repository's own eslint.config.js, and checks which rule fires.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The snippets are linted at paths that do not exist on disk, so the type-aware parser is told to give
// them a default project, and import-x/no-cycle (which would walk every module a snippet imports, and
// no module imports a snippet) is off for them; the rest of the repository's config applies unchanged.
// tests/importCycles.unit.spec.ts checks the cycles.
const PROBES = [
  'services/ledger/src/app/lintProbe.ts',
  'services/ledger/src/domain/lintProbe.ts',
  'services/kyc/src/lintProbe.ts',
  'services/investment/src/app/lintProbe.ts',
  'services/investment/src/lintProbe.ts',
  'gateway/src/lintProbe.ts',
  'gateway/src/lintProbe.unit.spec.ts',
  'bench/lintProbe.ts',
  'scripts/lintProbe.ts',
];
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: PROBES,
    rules: { 'import-x/no-cycle': 'off' },
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: PROBES,
          defaultProject: 'tsconfig.json',
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: PROBES.length,
        },
        tsconfigRootDir: root,
      },
    },
  },
});

/** The rule ids that fire for `code` placed at `path` (relative to the repository root; the file need not exist). */
async function ruleIdsFor(path: string, code: string): Promise<string[]> {
  expect(PROBES).toContain(path);
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal, 'the snippet parses').toEqual([]);
  return result!.messages.map((m) => m.ruleId ?? '');
}

// The first lint builds the TypeScript program of the whole repository (tens of seconds on a busy two-core
// machine); the cases after it reuse it.
describe('eslint.config.js', { timeout: 120_000 }, () => {
  it('fails a service that imports another service', async () => {
    const ids = await ruleIdsFor(
      'services/ledger/src/app/lintProbe.ts',
      "import { start } from '@meridian/identity';\nexport const probe = start;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it('fails a subpath of another service too, in any file of a package', async () => {
    const ids = await ruleIdsFor(
      'services/kyc/src/lintProbe.ts',
      "import { parseLedgerConfig } from '@meridian/ledger/config';\nexport const probe = parseLedgerConfig;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it('fails a driver imported in app/ (drivers belong in adapters/)', async () => {
    const ids = await ruleIdsFor(
      'services/investment/src/app/lintProbe.ts',
      "import { Kafka } from 'kafkajs';\nexport const probe = Kafka;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it("fails the gateway importing another package's src by path", async () => {
    const ids = await ruleIdsFor(
      'gateway/src/lintProbe.ts',
      "import { parseLedgerConfig } from '../../services/ledger/src/config.js';\nexport const probe = parseLedgerConfig;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it("fails production code importing another package's test kit", async () => {
    const ids = await ruleIdsFor(
      'gateway/src/lintProbe.ts',
      "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it("passes the allowed entry points: investment using the ledger's client kit", async () => {
    const ids = await ruleIdsFor(
      'services/investment/src/lintProbe.ts',
      [
        "import { createGrpcLedger } from '@meridian/ledger/client';",
        "import type { LedgerPort } from '@meridian/ledger/client/ledgerPort';",
        'export const probe: [typeof createGrpcLedger, LedgerPort | undefined] = [createGrpcLedger, undefined];',
        '',
      ].join('\n'),
    );
    expect(ids).toEqual([]);
  });

  it('passes a test importing a test kit of another package', async () => {
    const ids = await ruleIdsFor(
      'gateway/src/lintProbe.unit.spec.ts',
      "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
    );
    expect(ids).toEqual([]);
  });

  it("fails the root folders' code importing a package's src by path (bench/, tests/, scripts/)", async () => {
    const ids = await ruleIdsFor(
      'bench/lintProbe.ts',
      "import { parseLedgerConfig } from '../services/ledger/src/config.js';\nexport const probe = parseLedgerConfig;\n",
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it('fails a tool in scripts/ importing test code, and passes it a published entry point', async () => {
    const testKit = await ruleIdsFor(
      'scripts/lintProbe.ts',
      "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
    );
    expect(testKit).toContain('no-restricted-imports');
    const entryPoint = await ruleIdsFor(
      'scripts/lintProbe.ts',
      "import { freePort } from '@meridian/platform/util/freePort';\nexport const probe = freePort;\n",
    );
    expect(entryPoint).toEqual([]);
  });

  it('fails a switch over a union that misses a member', async () => {
    const ids = await ruleIdsFor(
      'services/ledger/src/domain/lintProbe.ts',
      [
        "type Shape = { kind: 'circle'; r: number } | { kind: 'square'; side: number };",
        'export function area(shape: Shape): number {',
        '  switch (shape.kind) {',
        "    case 'circle':",
        '      return shape.r * shape.r * 3;',
        '  }',
        '  return 0;',
        '}',
        '',
      ].join('\n'),
    );
    expect(ids).toContain('@typescript-eslint/switch-exhaustiveness-check');
  });

  it('fails a value import used only as a type', async () => {
    const ids = await ruleIdsFor(
      'services/ledger/src/app/lintProbe.ts',
      "import { Logger } from '@meridian/platform/logger';\nexport let probe: Logger | undefined;\n",
    );
    expect(ids).toContain('@typescript-eslint/consistent-type-imports');
  });
});
