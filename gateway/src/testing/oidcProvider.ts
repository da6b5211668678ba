/**
 * A real OpenID provider for tests: `oidc-provider` (a certified implementation) on a loopback port, one
 * client registered (redirect URI: the gateway's callback), its own login page (devInteractions: any login
 * name, any password; the account is the login name), consent granted up front for that client.
 *
 * `tamper` rewrites the ID token of the next token answers (its claims changed, re-signed with the
 * provider's own key, or with `signWith`): the token-level faults a gateway must catch (nonce, audience,
 * issuer, expiry, signature) on an otherwise genuine flow.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';
import { listenOn } from '@meridian/platform/util/freePort';
import { HttpSession } from './httpSession.js';

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims of the account signed in as `login` (default: `<login>@example.com`, verified). */
  accounts: Map<string, TestAccount>;
  /** Rewrites the ID token's claims in token answers while set. */
  tamper: ((claims: JWTPayload) => JWTPayload) | null;
  /** With `tamper`: sign the rewritten token with this key instead of the provider's. */
  signWith: CryptoKey | null;
  /** The OIDC_PROVIDERS entry of this provider. */
  entry(
    id: string,
    name: string,
  ): { id: string; name: string; issuer: string; clientId: string; clientSecret: string };
  /**
   * Signs in as `login` on the provider's own pages, over HTTP, from an authorization URL (the gateway's
   * start answer): the URL the provider sends the browser back to (the gateway's callback with code and
   * state).
   */
  signIn(authorizationUrl: string, login: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIdp(options: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
}): Promise<TestIdp> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handle(req, res));
  const port = await listenOn(server, 0, '127.0.0.1');
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = options.clientId ?? 'meridian-test-client';
  const clientSecret = options.clientSecret ?? 'meridian-test-client-secret-0123456789';

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-idp-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();
  const accountOf = (login: string): TestAccount =>
    accounts.get(login) ?? { email: `${login}@example.com`, email_verified: true, name: login };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ['meridian-test-idp-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
    // the scope's claims in the ID token itself (the gateway reads the ID token, not userinfo)
    conformIdTokenClaims: false,
    pkce: { methods: ['S256'], required: () => true },
    ttl: {
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
    },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...accountOf(sub) }),
    }),
    // a first-party client: consent is granted without asking
    loadExistingGrant: async (ctx) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });

  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    tamper: null,
    signWith: null,
    entry: (id, name) => ({ id, name, issuer, clientId, clientSecret }),
    async signIn(authorizationUrl, login) {
      const browser = new HttpSession(issuer, { headers: { accept: 'text/html' } });
      const follow = async (url: string, init?: { form: Record<string, string> }): Promise<string> => {
        const res = init
          ? await browser.request('POST', url, {
              rawBody: new URLSearchParams(init.form).toString(),
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              csrf: false,
            })
          : await browser.get(url);
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location) return new URL(location, url).href;
        if (res.status === 200 && typeof res.body === 'string' && res.body.includes('name="login"'))
          return url; // the login page
        throw new Error(`test IdP: ${res.status} at ${url}: ${String(res.body).slice(0, 300)}`);
      };
      let url = authorizationUrl;
      for (let hops = 0; hops < 10; hops++) {
        if (!url.startsWith(issuer)) return url; // back to the client
        const next = await follow(url);
        if (next === url) url = await follow(url, { form: { prompt: 'login', login, password: 'any' } });
        else url = next;
      }
      throw new Error('test IdP: too many redirects');
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };

  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== '/token' || !idp.tamper || typeof body?.id_token !== 'string') return;
    const claims = idp.tamper(decodeJwt(body.id_token));
    ctx.body = {
      ...body,
      id_token: await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signingKey.kid })
        .sign(idp.signWith ?? privateKey),
    };
  });
  handle = provider.callback();
  return idp;
}
