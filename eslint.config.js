// One flat config for the whole repository. It encodes the layer rules of STYLE.md:
// domain/ and projections/ are pure; only adapters/ (and composition roots) touch drivers;
// no package imports another service's src; the gateway and web never import a service.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DRIVERS = ['mongodb', 'kafkajs', '@grpc/grpc-js', 'ioredis', 'better-sqlite3', 'nodemailer', 'smtp-server', 'mailparser'];
const driverPatterns = DRIVERS.map((name) => ({ group: [name, `${name}/*`], message: 'Drivers are imported only in adapters/.' }));
const otherServices = [
  { group: ['@meridian/identity', '@meridian/identity/*', '@meridian/notification', '@meridian/notification/*'], message: 'A package never imports another service; talk gRPC or events.' },
  { group: ['**/services/*/src/**'], message: "Never import another package's src." },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'proto/gen/**', 'data/**', 'web/dist/**', 'artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['services/*/src/domain/**/*.ts', 'services/*/src/projections/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...driverPatterns, ...otherServices, { group: ['**/adapters/**', '**/app/**'], message: 'domain/ and projections/ are pure: no adapters/ or app/.' }] }],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Pass time in; do not call new Date() in domain/.' },
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Pass time in; do not call Date.now() in domain/.' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Pass ids/randomness in.' },
        { selector: "CallExpression[callee.name='randomUUID']", message: 'Pass ids in.' },
      ],
    },
  },
  {
    files: ['services/*/src/app/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...driverPatterns, ...otherServices] }] },
  },
  {
    files: ['services/identity/src/**/*.ts', 'services/notification/src/**/*.ts', 'gateway/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: otherServices }] },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@meridian/*', '**/services/**', '**/gateway/**'], message: 'The SPA talks HTTP only.' }] }] },
  },
);
