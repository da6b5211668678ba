// One flat config for the whole repository. It encodes the layer rules of STYLE.md:
// domain/ and projections/ are pure; only adapters/ (and composition roots) touch drivers;
// no package imports another package's src or (outside tests) its testing/ code; the gateway
// and web never import a service. The list of packages is read from the root package.json
// "workspaces", so a new service is held by the same rules the day it is added.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));
const readJson = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));

/** Every workspace as { dir, name }, e.g. { dir: 'services/ledger', name: '@meridian/ledger' }. */
const workspaces = readJson('package.json').workspaces.map((dir) => ({
  dir,
  name: readJson(`${dir}/package.json`).name,
}));

// Shared libraries every package may import through their exports: the platform kernel, the
// generated proto contracts and the statement verifier (meridian-verify: the ledger hashes its chain with it). Every other workspace (each service, standalone, gateway, web) is
// "another package" to everyone else.
const SHARED = new Set(['@meridian/platform', '@meridian/proto', 'meridian-verify']);

// The shared libraries of some packages only, each imported through its exports (but its testing/):
// investment and withdrawal are held requests (@meridian/held-request runs their lifecycle, flow and service);
// the ledger's client says it satisfies the held request's port to the ledger (HoldLedger).
const LIBRARIES = {
  '@meridian/investment': ['@meridian/held-request'],
  '@meridian/withdrawal': ['@meridian/held-request'],
  '@meridian/ledger': ['@meridian/held-request'],
};

// The only cross-package imports allowed in production (non-test) code, each a published entry point:
// - investment and withdrawal hold money through the ledger's client kit (a gRPC client and its port type);
// - standalone is a composition root: it starts every service and the gateway in one process, so it imports
//   their main entry ('.') and nothing below it.
const ALLOWED = {
  '@meridian/investment': ['@meridian/ledger/client', '@meridian/ledger/client/*'],
  '@meridian/withdrawal': ['@meridian/ledger/client', '@meridian/ledger/client/*'],
  '@meridian/standalone': [
    '@meridian/identity',
    '@meridian/notification',
    '@meridian/ledger',
    '@meridian/investment',
    '@meridian/withdrawal',
    '@meridian/kyc',
    '@meridian/support',
    '@meridian/gateway',
  ],
};

// Test code: specs, test kits (testing/ folders) and conformance suites.
// Test code may import any package's published entry points, test kits included (a test composes whole
// systems: the gateway's test kit starts standalone, harnesses start a ledger, cluster checks run the ledger
// invariants), but never another package's src by path. The root folders that are not packages (bench/, scripts/,
// tests/, web/scripts/) are held by rootFolderBlocks below.
const TEST_FILES = ['**/*.spec.ts', '**/*.spec.tsx', '**/testing/**', '**/*.conformance.ts'];

const DRIVERS = [
  'mongodb',
  'kafkajs',
  '@grpc/grpc-js',
  'ioredis',
  'better-sqlite3',
  'nodemailer',
  'smtp-server',
  'mailparser',
];
const driverPatterns = DRIVERS.map((name) => ({
  group: [name, `${name}/*`],
  message: 'Drivers are imported only in adapters/.',
}));
const layerPatterns = [
  {
    regex: '(^|/)adapters/|(^|/)app/',
    message: 'domain/ and projections/ are pure: no adapters/ or app/.',
  },
];
const srcPatterns = [
  {
    group: [...workspaces.map(({ dir }) => `**/${dir}/src/**`), '@meridian/*/src', '@meridian/*/src/**'],
    message: "Never import another package's src; use its published entry points.",
  },
];

/** The import patterns a file of package `name` may not use. */
function packagePatterns(name, { test }) {
  const libraries = LIBRARIES[name] ?? [];
  const others = workspaces.filter(
    (w) => w.name !== name && !SHARED.has(w.name) && !libraries.includes(w.name),
  );
  const patterns = [...srcPatterns];
  if (!test) {
    const allowed = ALLOWED[name] ?? [];
    const message =
      'A package never imports another service; talk gRPC or events (allowed entry points: see ALLOWED in eslint.config.js).';
    // Two patterns, because a gitignore-style group cannot re-include a path below an excluded parent: the bare
    // package names as an exact-match regex, then every subpath with the allowed subpaths re-included.
    const bare = others.map((w) => w.name).filter((n) => !allowed.includes(n));
    if (bare.length > 0) patterns.push({ regex: `^(${bare.join('|')})$`, message });
    patterns.push({
      group: [
        ...others.map((w) => `${w.name}/*`),
        ...allowed.filter((a) => a.split('/').length > 2).map((a) => `!${a}`),
      ],
      message,
    });
    patterns.push({
      group: ['@meridian/*/testing/**', '**/testing/**', '**/*.conformance*'],
      message: 'Production code never imports test code.',
    });
  }
  return patterns;
}

const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const tsFiles = (dir) => [`${dir}/**/*.ts`, `${dir}/**/*.tsx`];
const inTest = (dir) => TEST_FILES.map((glob) => `${dir}/${glob}`);

// The folders at the root that are not packages: bench/ (the benchmarks), scripts/ (make's tools), tests/ (the
// suites across packages) and web/scripts/ (the SPA's build tools). bench/ and tests/ are test code (they may import
// every package's published entry points, test kits included); scripts/ and web/scripts/ are tools that run
// in development and operations, so they import no test code. None of them imports a package's src by path.
const rootFolderBlocks = [
  {
    files: ['bench/**/*.{ts,tsx,mts,js,mjs}', 'tests/**/*.{ts,tsx,mts,js,mjs}'],
    rules: restrict(srcPatterns),
  },
  {
    files: ['scripts/**/*.{ts,mts,js,mjs}', 'web/scripts/**/*.{ts,mts,js,mjs}'],
    rules: restrict([
      ...srcPatterns,
      {
        group: ['@meridian/*/testing/**', '**/testing/**', '**/*.conformance*'],
        message: 'Tools never import test code.',
      },
    ]),
  },
];

// Per package, most specific last (flat config: the last matching block sets a rule's options).
const packageBlocks = workspaces.flatMap(({ dir, name }) => {
  if (name === '@meridian/web') return []; // the SPA has its own, stricter rule below
  const blocks = [
    { files: tsFiles(dir), ignores: TEST_FILES, rules: restrict(packagePatterns(name, { test: false })) },
    { files: inTest(dir), rules: restrict(packagePatterns(name, { test: true })) },
  ];
  if (dir.startsWith('services/')) {
    blocks.push(
      {
        files: [`${dir}/src/app/**/*.ts`],
        ignores: TEST_FILES,
        rules: restrict([...driverPatterns, ...packagePatterns(name, { test: false })]),
      },
      {
        files: [`${dir}/src/domain/**/*.ts`, `${dir}/src/projections/**/*.ts`],
        ignores: TEST_FILES,
        rules: {
          ...restrict([...driverPatterns, ...layerPatterns, ...packagePatterns(name, { test: false })]),
          'no-restricted-syntax': [
            'error',
            {
              selector: "NewExpression[callee.name='Date'][arguments.length=0]",
              message: 'Pass time in; do not call new Date() in domain/.',
            },
            {
              selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
              message: 'Pass time in; do not call Date.now() in domain/.',
            },
            {
              selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
              message: 'Pass ids/randomness in.',
            },
            { selector: "CallExpression[callee.name='randomUUID']", message: 'Pass ids in.' },
          ],
        },
      },
    );
  }
  return blocks;
});

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'proto/gen/**',
      'data/**',
      'web/dist/**',
      'artifacts/**',
      '**/.cache/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // Type-aware rules for TypeScript: each file is checked with the tsconfig that includes it
  // (tsconfig.json for servers, web/tsconfig.json for the SPA and the browser suites).
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: root,
      },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  // The browser suites and their support live outside tsconfig.json, in web/tsconfig.json (DOM types).
  {
    files: ['tests/e2e/**/*.ts', 'tests/support/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['./web/tsconfig.json'], tsconfigRootDir: root },
    },
  },
  // No import cycles: a module never reaches itself again through the modules it imports. The rule skips type-only
  // imports; tests/importCycles.unit.spec.ts checks the same graph with them.
  {
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.json', 'web/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  ...rootFolderBlocks,
  ...packageBlocks,
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: restrict([
      { group: ['@meridian/*', '**/services/**', '**/gateway/**'], message: 'The SPA talks HTTP only.' },
    ]),
  },
);
