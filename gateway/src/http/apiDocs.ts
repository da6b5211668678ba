/**
 * GET /api/openapi.json (the OpenAPI 3.1 document of openapi.ts) and GET /api/docs: the same document
 * as one self-contained HTML page rendered here (no script, no CDN: it works offline and under the CSP).
 */
import type { Router } from 'express';
import type { GatewayConfig } from '../config.js';
import { buildOpenApiDocument } from './openapi.js';
import { API_DOCS_ROUTES } from './otherRoutes.js';
import { routerOf } from './routeTable.js';

type Json = Record<string, any>;

export function apiDocsRouter(config: Pick<GatewayConfig, 'nodeEnv'>, options: { money: boolean }): Router {
  const document = buildOpenApiDocument({
    production: config.nodeEnv === 'production',
    money: options.money,
  });
  return routerOf(API_DOCS_ROUTES, { body: JSON.stringify(document), page: renderApiDocs(document) }, '/api');
}

const esc = (v: unknown) =>
  String(v).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** `code` spans and nothing else of Markdown. */
const prose = (text: unknown) => esc(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');

const refName = (ref: string) => ref.split('/').pop()!;
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** A short type text for a JSON Schema: `string`, `User`, `Investment[]`, `number | null`, ... */
function typeText(s: Json | undefined): string {
  if (!s || Object.keys(s).length === 0) return 'any';
  if (s.$ref) {
    const name = refName(s.$ref);
    return `<a href="#${anchor('schema', name)}">${esc(name)}</a>`;
  }
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf).map(typeText).join(' | ');
  if (s.const !== undefined) return `<code>${esc(JSON.stringify(s.const))}</code>`;
  if (s.enum) return s.enum.map((v: unknown) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ');
  if (Array.isArray(s.type)) return s.type.map((t: string) => typeText({ ...s, type: t })).join(' | ');
  if (s.type === 'array') return `${typeText(s.items)}[]`;
  if (s.type === 'object' && s.properties) return 'object';
  return esc(s.type ?? 'any');
}

function constraints(s: Json): string {
  const out: string[] = [];
  if (s.minLength !== undefined) out.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) out.push(`max length ${s.maxLength}`);
  if (s.pattern) out.push('pattern');
  if (s.description) out.push(prose(s.description));
  return out.join('; ');
}

/** The fields of an object schema as a table (nested objects as their own rows). */
function fieldsTable(s: Json | undefined, schemas: Json): string {
  if (!s) return '';
  if (s.$ref) return fieldsTable(schemas[refName(s.$ref)], schemas);
  if (s.anyOf)
    return s.anyOf.map((alt: Json) => `<p class="alt">one of:</p>${fieldsTable(alt, schemas)}`).join('');
  if (s.type !== 'object' || !s.properties) return `<p>${typeText(s)}</p>`;
  const required = new Set<string>(s.required ?? []);
  const rows = Object.entries(s.properties as Record<string, Json>).map(
    ([name, p]) =>
      `<tr><td><code>${esc(name)}</code>${required.has(name) ? '' : ' <span class="opt">optional</span>'}</td>` +
      `<td>${p.type === 'object' && p.properties ? fieldsTable(p, schemas) : typeText(p)}</td><td>${constraints(p)}</td></tr>`,
  );
  return `<table><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const ACCESS: Record<string, string> = { public: 'anyone', user: 'signed in', admin: 'admin' };

function operationHtml(path: string, method: string, op: Json, schemas: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}${p.required ? '' : ', optional'}</td><td>${prose(p.description)}</td></tr>`,
    )
    .join('');
  const body = op.requestBody?.content as Json | undefined;
  const bodyHtml = body
    ? Object.entries(body)
        .map(
          ([media, c]) =>
            `<h4>Body <code>${esc(media)}</code></h4>${fieldsTable((c as Json).schema, schemas)}`,
        )
        .join('')
    : '';
  const responses = Object.entries(op.responses as Json)
    .map(([status, r]) => {
      const content = Object.entries((r.content ?? {}) as Json);
      const types = content.map(
        ([media, c]) => `${typeText((c as Json).schema)} <small>${esc(media)}</small>`,
      );
      const messages = content.flatMap(([, c]) =>
        Object.values(((c as Json).examples ?? {}) as Json).map((e) => (e as Json).value?.message),
      );
      const list = messages.length
        ? `<ul>${messages.map((m) => `<li><code>${esc(m)}</code></li>`).join('')}</ul>`
        : '';
      return `<tr><td class="status s${esc(status[0])}">${esc(status)}</td><td>${prose(r.description)} ${types.join(', ')}${list}</td></tr>`;
    })
    .join('');
  const id = anchor('op', `${method}-${path}`);
  return `<section class="op" id="${id}">
<h3><span class="method m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code> <a class="here" href="#${id}">#</a></h3>
<p>${prose(op.summary)}. <span class="access">Access: ${esc(ACCESS[op['x-access']] ?? op['x-access'])}${op['x-rate-limit'] ? `, rate limited (${esc(op['x-rate-limit'])})` : ''}.</span></p>
${op.description ? `<p>${prose(op.description)}</p>` : ''}
${paramRows ? `<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>notes</th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
${bodyHtml}
<h4>Answers</h4><table class="responses"><tbody>${responses}</tbody></table>
</section>`;
}

/** The whole document as one HTML page: operations by tag, then every schema. */
export function renderApiDocs(doc: Json): string {
  const schemas = (doc.components?.schemas ?? {}) as Json;
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(ops as Json)) {
      const tag = (op as Json).tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op as Json, schemas)]);
      toc.set(tag, [
        ...(toc.get(tag) ?? []),
        `<li><a href="#${anchor('op', `${method}-${path}`)}"><span class="method m-${esc(method)}">${esc(method.toUpperCase())}</span> ${esc(path)}</a></li>`,
      ]);
    }
  }
  const sections = [...byTag].map(
    ([tag, ops]) => `<h2 id="${anchor('tag', tag)}">${esc(tag)}</h2>${ops.join('\n')}`,
  );
  const schemaSections = Object.entries(schemas).map(
    ([name, s]) =>
      `<section class="schema" id="${anchor('schema', name)}"><h3>${esc(name)}</h3>${(s as Json).description ? `<p>${prose((s as Json).description)}</p>` : ''}${fieldsTable(s as Json, schemas)}</section>`,
  );
  const nav = [...toc]
    .map(
      ([tag, items]) => `<h4><a href="#${anchor('tag', tag)}">${esc(tag)}</a></h4><ul>${items.join('')}</ul>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}: API reference</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1c2430;background:#f7f8fa}
.layout{display:grid;grid-template-columns:minmax(14rem,20rem) 1fr}
nav{position:sticky;top:0;height:100vh;overflow:auto;padding:1rem;background:#fff;border-right:1px solid #e2e6ea;font-size:13px}
nav ul{list-style:none;padding:0;margin:0 0 .5rem}nav li a{display:block;padding:.1rem 0;color:#1c2430;text-decoration:none;word-break:break-all}
main{padding:1.5rem 2rem;max-width:64rem}h1{margin-top:0}h2{border-bottom:2px solid #d5dbe1;padding-bottom:.25rem;margin-top:2.5rem}
.op,.schema{background:#fff;border:1px solid #e2e6ea;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
.op h3{margin:.2rem 0;font-size:1rem;word-break:break-all}.here{color:#9aa5b1;text-decoration:none}
.method{display:inline-block;min-width:3.6rem;text-align:center;border-radius:4px;color:#fff;font-size:11px;font-weight:700;padding:.1rem .3rem}
.m-get{background:#2f7d4f}.m-post{background:#2c5f9e}.m-put{background:#8a5a00}.m-patch{background:#6b4aa0}.m-delete{background:#a33a3a}
table{border-collapse:collapse;width:100%;margin:.25rem 0 .75rem;font-size:13px}th,td{border-top:1px solid #eef1f4;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{color:#5b6875;font-weight:600}td table{margin:0}.status{font-weight:700;width:3rem}.s2{color:#2f7d4f}.s4{color:#a35a00}.s5{color:#a33a3a}
.opt,.access,small{color:#5b6875}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f3f5;padding:0 .2rem;border-radius:3px}
ul{margin:.2rem 0;padding-left:1.2rem}.alt{margin:.25rem 0;color:#5b6875}
@media (max-width:50rem){.layout{display:block}nav{position:static;height:auto}}
</style></head>
<body><div class="layout"><nav><p><strong>${esc(doc.info.title)}</strong> ${esc(doc.info.version)}<br><a href="/api/openapi.json">openapi.json</a></p>${nav}<h4><a href="#schemas">Schemas</a></h4></nav>
<main><h1>${esc(doc.info.title)}</h1><p>${prose(doc.info.description)}</p>
<p>OpenAPI ${esc(doc.openapi)} document: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
${sections.join('\n')}
<h2 id="schemas">Schemas</h2>
${schemaSections.join('\n')}
</main></div></body></html>`;
}
