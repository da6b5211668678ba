/**
 * `make config-docs`: writes the table of environment variables in docs/CONVENTIONS.md from the zod schemas
 * of the config modules (each variable's `.describe()` is its line, a `.default()` its default), between
 * the config-docs markers. tests/config.docs.unit.spec.ts fails when the committed table differs from what
 * the schemas give.
 *
 *   tsx scripts/configDocs.ts           write the table
 *   tsx scripts/configDocs.ts --check   exit 1 when the committed table is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import type { z } from 'zod';
import { internalEnvSchema } from '@meridian/platform/config';
/* eslint-disable no-restricted-imports -- the config modules themselves, as tests/infra.env.ts reads them: the
   packages' entry points would load (and need working) every program for a table of names */
import { gatewayEnvSchema } from '../gateway/src/config.js';
import { identityEnvSchema } from '../services/identity/src/config.js';
import { investmentEnvSchema } from '../services/investment/src/config.js';
import { kycEnvSchema } from '../services/kyc/src/config.js';
import { ledgerEnvSchema } from '../services/ledger/src/config.js';
import { notificationEnvSchema } from '../services/notification/src/config.js';
import { standaloneEnvSchema } from '../services/standalone/src/config.js';
import { supportEnvSchema } from '../services/support/src/config.js';
import { withdrawalEnvSchema } from '../services/withdrawal/src/config.js';
/* eslint-enable no-restricted-imports */
import { SERVICES } from '@meridian/platform/services';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONVENTIONS = 'docs/CONVENTIONS.md';
export const BEGIN_MARKER = '<!-- config-docs:begin: written by scripts/configDocs.ts (make config-docs) -->';
export const END_MARKER = '<!-- config-docs:end -->';

/** Every config module's schema, in the table's order (the first to name a variable places its row). */
export const CONFIG_SCHEMAS: ReadonlyArray<{ name: string; schema: z.ZodType }> = [
  { name: 'identity', schema: identityEnvSchema },
  { name: 'notification', schema: notificationEnvSchema },
  { name: 'kyc', schema: kycEnvSchema },
  { name: 'ledger', schema: ledgerEnvSchema },
  { name: 'investment', schema: investmentEnvSchema },
  { name: 'withdrawal', schema: withdrawalEnvSchema },
  { name: 'support', schema: supportEnvSchema },
  { name: 'gateway', schema: gatewayEnvSchema },
  { name: 'standalone', schema: standaloneEnvSchema },
  { name: 'platform (internal)', schema: internalEnvSchema },
];

export interface ConfigVariable {
  name: string;
  /** The config modules whose schema has it. */
  usedBy: string[];
  /** The first `.describe()` met (every variable must carry one). */
  description?: string;
  /** Each module's default, rendered (absent: none). */
  defaults: Map<string, string | undefined>;
  /** A secret with a development default outside production that production requires (withDevDefaults). */
  developmentDefault: boolean;
  /** Production refuses to start without it (withDevDefaults' requiredInProduction, a schema's refinement). */
  requiredInProduction: boolean;
}

/** The object schema under refinements and transforms. */
export function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  let s: any = schema;
  for (let i = 0; i < 10 && s && !s.shape; i++) s = s.def?.in ?? s.def?.innerType;
  if (!s?.shape) throw new Error('schema has no object shape');
  return s.shape as Record<string, z.ZodType>;
}

/** A variable's description and default, through optional/default/pipe wrappers. */
export function inspectVariable(schema: z.ZodType): { description?: string; defaultValue?: unknown } {
  let s: any = schema;
  let description: string | undefined;
  let defaultValue: unknown;
  for (let i = 0; i < 10 && s; i++) {
    description ??= s.description as string | undefined;
    const type = s.def?.type as string | undefined;
    if (type === 'default') {
      defaultValue ??= s.def.defaultValue;
      s = s.def.innerType;
    } else if (type === 'optional' || type === 'nullable' || type === 'prefault' || type === 'readonly') {
      s = s.def.innerType;
    } else if (type === 'pipe') {
      s = s.def.in;
    } else break;
  }
  return { description, defaultValue };
}

/**
 * The variables a schema requires in production (`required`), and those of them it gives a value outside
 * production without a zod default (`developmentDefault`: withDevDefaults' development defaults).
 */
function productionRules(schema: z.ZodType): { required: Set<string>; developmentDefault: Set<string> } {
  const development = schema.safeParse({ NODE_ENV: 'development' });
  const production = schema.safeParse({ NODE_ENV: 'production' });
  const required = new Set(
    production.success
      ? []
      : production.error.issues
          .filter((i) => i.message === 'is required in production')
          .map((i) => String(i.path[0])),
  );
  const values = (development.success ? development.data : {}) as Record<string, unknown>;
  const developmentDefault = new Set(
    Object.entries(shapeOf(schema))
      .filter(
        ([name, v]) =>
          required.has(name) && values[name] !== undefined && inspectVariable(v).defaultValue === undefined,
      )
      .map(([name]) => name),
  );
  return { required, developmentDefault };
}

/** Every variable of the config schemas, in table order. */
export function configVariables(schemas = CONFIG_SCHEMAS): ConfigVariable[] {
  const byName = new Map<string, ConfigVariable>();
  for (const { name: module, schema } of schemas) {
    const rules = productionRules(schema);
    for (const [name, variable] of Object.entries(shapeOf(schema))) {
      const { description, defaultValue } = inspectVariable(variable);
      let entry = byName.get(name);
      if (!entry)
        byName.set(
          name,
          (entry = {
            name,
            usedBy: [],
            defaults: new Map(),
            developmentDefault: false,
            requiredInProduction: false,
          }),
        );
      entry.usedBy.push(module);
      entry.developmentDefault ||= rules.developmentDefault.has(name);
      entry.requiredInProduction ||= rules.required.has(name);
      entry.description ??= description;
      entry.defaults.set(module, defaultValue === undefined ? undefined : String(defaultValue));
    }
  }
  return [...byName.values()];
}

/** "every service" when each service uses it; with the gateway and the standalone too: "all". */
function usedByText(usedBy: string[]): string {
  const services: readonly string[] = SERVICES;
  const all = [...services, 'gateway', 'standalone'];
  if (all.every((m) => usedBy.includes(m)))
    return ['all', ...usedBy.filter((m) => !all.includes(m))].join(', ');
  if (services.every((m) => usedBy.includes(m)))
    return ['every service', ...usedBy.filter((m) => !services.includes(m))].join(', ');
  return usedBy.join(', ');
}

function defaultText(v: ConfigVariable): string {
  if (v.developmentDefault) return 'development default; required in production';
  const counts = new Map<string, number>();
  for (const d of v.defaults.values()) if (d !== undefined) counts.set(d, (counts.get(d) ?? 0) + 1);
  if (counts.size === 0) return v.requiredInProduction ? 'required in production' : '';
  const [usual] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  const exceptions = [...v.defaults.entries()]
    .filter(([, d]) => d !== undefined && d !== usual)
    .map(([module, d]) => `${module}: \`${d}\``);
  return [`\`${usual}\``, ...(exceptions.length ? [`(${exceptions.join(', ')})`] : [])].join(' ');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** The markdown table (before Prettier aligns it). */
export function configTable(variables = configVariables()): string {
  const rows = variables.map(
    (v) => `| ${[v.name, usedByText(v.usedBy), defaultText(v), v.description ?? ''].map(cell).join(' | ')} |`,
  );
  return ['| variable | used by | default | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `text` (docs/CONVENTIONS.md) with the table between the markers written from the schemas, Prettier-formatted. */
export async function renderConventions(text: string, variables = configVariables()): Promise<string> {
  const begin = text.indexOf(BEGIN_MARKER);
  const end = text.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`${CONVENTIONS} has no ${BEGIN_MARKER} … ${END_MARKER}`);
  const next = `${text.slice(0, begin + BEGIN_MARKER.length)}\n\n${configTable(variables)}\n\n${text.slice(end)}`;
  const path = resolve(ROOT, CONVENTIONS);
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(next, { ...options, filepath: path });
}

export async function main(args: readonly string[]): Promise<number> {
  const path = resolve(ROOT, CONVENTIONS);
  const text = readFileSync(path, 'utf8');
  const next = await renderConventions(text);
  if (args.includes('--check')) {
    if (next === text) return 0;
    process.stderr.write(`${CONVENTIONS}: the table of variables is out of date: run make config-docs\n`);
    return 1;
  }
  if (next !== text) writeFileSync(path, next);
  process.stdout.write(`${CONVENTIONS}: ${configVariables().length} variables\n`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));
