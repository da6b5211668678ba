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

interface Case {
  name: string;
  /** Where the snippet is linted as if it stood. */
  path: string;
  code: string;
}

const NO_RESTRICTED = 'no-restricted-imports';

/** Snippets a rule fails, with that rule. */
const FAILING: Array<Case & { rule: string }> = [
  {
    name: 'a service that imports another service',
    path: 'services/ledger/src/app/lintProbe.ts',
    code: "import { start } from '@meridian/identity';\nexport const probe = start;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: 'a subpath of another service too, in any file of a package',
    path: 'services/kyc/src/lintProbe.ts',
    code: "import { parseLedgerConfig } from '@meridian/ledger/config';\nexport const probe = parseLedgerConfig;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: 'a driver imported in app/ (drivers belong in adapters/)',
    path: 'services/investment/src/app/lintProbe.ts',
    code: "import { Kafka } from 'kafkajs';\nexport const probe = Kafka;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: "the gateway importing another package's src by path",
    path: 'gateway/src/lintProbe.ts',
    code: "import { parseLedgerConfig } from '../../services/ledger/src/config.js';\nexport const probe = parseLedgerConfig;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: "production code importing another package's test kit",
    path: 'gateway/src/lintProbe.ts',
    code: "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: "the root folders' code importing a package's src by path (bench/, tests/, scripts/)",
    path: 'bench/lintProbe.ts',
    code: "import { parseLedgerConfig } from '../services/ledger/src/config.js';\nexport const probe = parseLedgerConfig;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: 'a tool in scripts/ importing test code',
    path: 'scripts/lintProbe.ts',
    code: "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
    rule: NO_RESTRICTED,
  },
  {
    name: 'a switch over a union that misses a member',
    path: 'services/ledger/src/domain/lintProbe.ts',
    code: [
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
    rule: '@typescript-eslint/switch-exhaustiveness-check',
  },
  {
    name: 'a value import used only as a type',
    path: 'services/ledger/src/app/lintProbe.ts',
    code: "import { Logger } from '@meridian/platform/logger';\nexport let probe: Logger | undefined;\n",
    rule: '@typescript-eslint/consistent-type-imports',
  },
];

/** Snippets no rule fails. */
const PASSING: Case[] = [
  {
    name: "the allowed entry points: investment using the ledger's client kit",
    path: 'services/investment/src/lintProbe.ts',
    code: [
      "import { createGrpcLedger } from '@meridian/ledger/client';",
      "import type { LedgerPort } from '@meridian/ledger/client/ledgerPort';",
      'export const probe: [typeof createGrpcLedger, LedgerPort | undefined] = [createGrpcLedger, undefined];',
      '',
    ].join('\n'),
  },
  {
    name: 'a test importing a test kit of another package',
    path: 'gateway/src/lintProbe.unit.spec.ts',
    code: "import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';\nexport const probe = expectLedgerInvariants;\n",
  },
  {
    name: 'a tool in scripts/ importing a published entry point',
    path: 'scripts/lintProbe.ts',
    code: "import { freePort } from '@meridian/platform/util/freePort';\nexport const probe = freePort;\n",
  },
];

// The first lint builds the TypeScript program of the whole repository (tens of seconds on a busy two-core
// machine); the cases after it reuse it.
describe('eslint.config.js', { timeout: 120_000 }, () => {
  it.each(FAILING)('fails $name', async ({ path, code, rule }) => {
    expect(await ruleIdsFor(path, code)).toContain(rule);
  });

  it.each(PASSING)('passes $name', async ({ path, code }) => {
    expect(await ruleIdsFor(path, code)).toEqual([]);
  });
});
