/**
 * The served OpenAPI document as the API contract specs (apiContract.*.int.spec.ts) use it: the money
 * composition they run against with its admin and the document it serves, and the checks that an answer
 * is documented (its status, its JSON fields against the document's schemas, an error's message).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { openApiPath } from '../http/openapi.js';
import { HttpSession, type HttpResult, type RequestOptions } from './httpSession.js';
import { adminBrowser, startMoneyComposition } from './money.js';
import { sharedForSpec, startedWith } from './specComposition.js';

/** The money composition (PLANS_JSON), its admin, and the OpenAPI document it serves. */
export const startApiContract = () =>
  startedWith(startMoneyComposition, async (t) => ({
    admin: await adminBrowser(t.url),
    doc: (await (await fetch(`${t.url}/api/openapi.json`)).json()) as any,
  }));

/**
 * The API contract composition for a spec file's tests, handed to `set`; answers the checks against the
 * document it serves (documentChecks) and a maker of fresh browsers that have no session.
 */
export function apiContractSpec(set: (started: Awaited<ReturnType<typeof startApiContract>>) => void) {
  let url = '';
  let doc: any;
  sharedForSpec(startApiContract, (started) => {
    url = started.t.url;
    doc = started.doc;
    set(started);
  });
  return { ...documentChecks(() => doc), anonymous: () => new HttpSession(url) };
}

// ---------------------------------------------------------------- the document as a validator
export const DOC_ID = 'https://meridian.invalid/openapi.json';
export const pointer = (...parts: string[]) =>
  '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** A documented message as a pattern: `<name>` stands for a part that varies. */
const documentedMessage = (m: string) =>
  new RegExp(
    `^${m
      .split(/<[a-z]+>/i)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );

/** The checks against the document `getDoc` answers (read when first used). */
export function documentChecks(getDoc: () => any) {
  let ajv: Ajv2020 | undefined;
  /** Ajv holding the served document, so `#/components/...` references resolve inside it. */
  function documentAjv(): Ajv2020 {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema({ ...getDoc(), $id: DOC_ID });
    }
    return ajv;
  }

  function validatorOf(path: string, method: string, status: number) {
    const ref = `${DOC_ID}${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
    const validate = documentAjv().getSchema(ref);
    if (!validate) throw new Error(`no schema at ${ref}`);
    return validate;
  }

  /** The answer is documented for this operation: its status, its JSON fields, and (errors) its message. */
  function expectDocumented(method: string, template: string, res: HttpResult): void {
    const path = openApiPath(template);
    const op = getDoc().paths[path]?.[method];
    expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
    const answer = op.responses[String(res.status)];
    const what = `${method.toUpperCase()} ${path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
    expect(answer, `${what}: status documented`).toBeDefined();
    const json = answer.content?.['application/json'];
    if (json) {
      expect(res.headers.get('content-type'), what).toContain('application/json');
      const validate = validatorOf(path, method, res.status);
      const ok = validate(res.body);
      expect(ok, `${what}: ${documentAjv().errorsText(validate.errors)}`).toBe(true);
      const messages = Object.values(json.examples ?? {}).map((e: any) => e.value.message);
      if (res.status >= 400 && messages.length > 0)
        expect(
          messages.some((m) => documentedMessage(m).test(res.body.message)),
          `${what}: message documented among ${JSON.stringify(messages)}`,
        ).toBe(true);
    } else {
      const media = Object.keys(answer.content ?? {})[0];
      if (media && media !== 'application/octet-stream')
        expect(res.headers.get('content-type'), what).toContain(media);
    }
  }

  /** A request through a browser, checked against the document. */
  async function call(
    browser: HttpSession,
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    template: string,
    options: RequestOptions & { path?: string } = {},
  ): Promise<HttpResult> {
    const res = await browser.request(method.toUpperCase(), options.path ?? template, options);
    expectDocumented(method, template, res);
    return res;
  }

  return { documentAjv, expectDocumented, call };
}
