/**
 * Sign-in through an OpenID Connect provider in headless Chromium, against the standalone target (`make
 * start`'s process, serving the built SPA) configured with two providers: a real OpenID provider on a
 * loopback port (oidc-provider, gateway/src/testing/oidcProvider.ts) as "Test IdP", and Google.
 *
 *  1. /login shows "Continue with Test IdP" and "Continue with Google" (no serious accessibility violation);
 *     shots at 1280 and 390 px into artifacts/screenshots/ (no sideways scrolling);
 *  2. clicking "Continue with Test IdP" leads to the provider's own login page; signing in there lands on
 *     /dashboard, signed in as the provider's account;
 *  3. the same callback URL opened again in another browser lands on /login with the reason shown.
 *
 *   cd web && npx vite build && cd .. && npx vitest run --project e2e tests/e2e/oidc.e2e.spec.ts
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestIdp, type TestIdp } from '@meridian/gateway/testing/oidcProvider';
import { checkA11y } from '../support/a11y.js';
import { SHOTS, stepsInOrder, useBrowserTarget } from '../support/browserTarget.js';
import { freePort } from '@meridian/platform/util/freePort';
import { sidewaysOverflow } from '../support/journey.js';

let idp: TestIdp | undefined;
let callbackUrl = '';

const person = { login: 'ida', email: `ida.${Date.now()}@example.com`, name: 'Ida Provider' };

const e2e = useBrowserTarget({
  name: 'oidc',
  admin: { email: 'e2e-oidc-admin@example.com', password: 'E2e-Admin-Passw0rd!' },
  async setup() {
    const port = await freePort();
    const url = `http://localhost:${port}`;
    idp = await startTestIdp({ redirectUris: [`${url}/api/auth/oidc/test-idp/callback`] });
    idp.accounts.set(person.login, { email: person.email, email_verified: true, name: person.name });
    return {
      port,
      env: {
        APP_URL: url,
        OIDC_PROVIDERS: JSON.stringify([
          idp.entry('test-idp', 'Test IdP'),
          { id: 'google', clientId: 'meridian-e2e.apps.googleusercontent.com' },
        ]),
      },
    };
  },
});
const { watcher, newContext, assertNoConsoleErrors } = e2e;

afterAll(async () => {
  await idp?.stop();
});

describe('sign-in through an OpenID Connect provider in Chromium', () => {
  stepsInOrder();

  it('1. /login offers both providers; shots at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      const context = await newContext(`login ${width}`, { width, height: 800 });
      const page = await context.newPage();
      await page.goto('/login', { waitUntil: 'networkidle' });
      const buttons = page.getByRole('link', { name: /^Continue with / });
      await page.getByRole('link', { name: 'Continue with Google' }).waitFor();
      expect(await buttons.allTextContents()).toEqual(['Continue with Test IdP', 'Continue with Google']);
      expect(await sidewaysOverflow(page), `/login scrolls sideways at ${width} px`).toBeNull();
      await checkA11y(page, `login-providers-${width}`);
      await page.screenshot({ path: join(SHOTS, `login-providers-${width}.png`), fullPage: true });
      await context.close();
    }
    assertNoConsoleErrors();
  });

  it('2. "Continue with Test IdP", signing in on the provider\'s page, lands on /dashboard signed in', async () => {
    const context = await newContext('person');
    const page = await context.newPage();
    page.on('request', (req) => {
      if (req.url().includes('/api/auth/oidc/test-idp/callback')) callbackUrl = req.url();
    });
    // the test provider's own page (oidc-provider's development login) asks for a web font and a favicon
    // it does not have: not this app's errors
    watcher.expect({
      why: "the test provider's login page: its web font (no network here) and favicon",
      text: /ERR_NAME_NOT_RESOLVED|status of 404/,
      url: new RegExp(`^(https://fonts\\.googleapis\\.com/|${idp!.issuer.replace(/[.]/g, '\\.')}/favicon)`),
      times: Number.POSITIVE_INFINITY,
    });
    await page.goto('/login');
    await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
    // the provider's own login page
    await page.waitForURL(`${idp!.issuer}/interaction/**`);
    await page.locator('input[name="login"]').fill(person.login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL(`${e2e.url}/dashboard`);
    await page.getByRole('heading', { name: `Welcome, ${person.name}` }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/users/getUser')).json());
    expect(me).toMatchObject({ email: person.email, name: person.name, isVerified: true });
    expect(callbackUrl).toMatch(/[?&]code=.+&?/);
    await context.close();
    assertNoConsoleErrors();
  });

  it('3. the callback URL replayed in another browser lands on /login with the reason', async () => {
    const context = await newContext('replay');
    const page = await context.newPage();
    watcher.expect({
      why: 'the replayed flow signed nobody in: getUser answers 401',
      text: /status of 401/,
      url: /\/api\/users\/getUser$/,
    });
    await page.goto(callbackUrl);
    await page.waitForURL(`${e2e.url}/login?error=invalid_state`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That sign-in attempt expired or was already used. Please try again.');
    const me = await page.evaluate(async () => (await fetch('/api/users/getUser')).status);
    expect(me).toBe(401);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'login-provider-refused-390.png'), fullPage: true });
    await context.close();
    assertNoConsoleErrors();
  });
});
