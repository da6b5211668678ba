/**
 * The gateway's route table, read from the Express router stack: what the authorization matrix
 * (authzMatrix.int.spec.ts) and the fuzzing suite (fuzz.int.spec.ts) walk, so a new route is covered
 * (or fails them) without anyone listing it.
 */
import type { Express } from 'express';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createGatewayApp } from '../app.js';
import { DEV_KYC_INTERNAL_TOKEN, type GatewayConfig } from '../config.js';
import { silentLogger } from '../logger.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One registered route: `key` is `<method> <Express path>`, e.g. `put /api/invest/:id/approve`. */
export interface RegisteredRoute {
  method: HttpMethod;
  path: string;
  key: string;
}

/** The SPA's client-side-routing fallback (spa.ts): every other GET, never part of the API. */
export const SPA_FALLBACK_PATH = '/{*splat}';

/** Every (method, path) the app registers, in registration order, walking the Express router stack. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const p of [layer.route.path].flat() as string[])
          for (const m of Object.keys(layer.route.methods).filter((k) => k !== '_all')) {
            const path = prefix + p;
            out.push({ method: m as HttpMethod, path, key: `${m} ${path}` });
          }
      } else if (Array.isArray(layer.handle?.stack)) {
        const mount = [layer.rawPath].flat()[0] as string;
        walk(layer.handle.stack, prefix + (mount && mount !== '/' ? mount : ''));
      }
    }
  };
  walk((app as any).router.stack, '');
  return out;
}

/**
 * The gateway app built on stub clients: route registration never calls one, nor do the paths a test of it
 * asks (the SPA's files from `webDist`, the answers the gateway gives alone).
 */
export function routeTableApp(
  nodeEnv: GatewayConfig['nodeEnv'] = 'test',
  money = true,
  webDist = '/nonexistent-web-dist',
): Express {
  const stub = {} as never;
  return createGatewayApp({
    config: {
      nodeEnv,
      port: 0,
      identityGrpcUrl: '127.0.0.1:1',
      notificationGrpcUrl: '127.0.0.1:1',
      webDist,
      appUrl: 'http://localhost:8080',
      cookieSecure: false,
      trustProxy: 'loopback',
      kycGrpcUrl: '127.0.0.1:1',
      kycHttpUrl: 'http://127.0.0.1:1',
      kycInternalToken: DEV_KYC_INTERNAL_TOKEN,
      dataDir: ':memory:',
    },
    identity: stub,
    notification: stub,
    kyc: stub,
    support: stub,
    kv: createMemoryKeyValueStore({ prefix: 'routes:' }),
    logger: silentLogger,
    ...(money ? { money: stub } : {}),
  });
}

/** The API routes a test composition serves (development/test, money services on), SPA fallback aside. */
export function apiRoutes(): RegisteredRoute[] {
  return registeredRoutes(routeTableApp()).filter((r) => r.path !== SPA_FALLBACK_PATH);
}

/** A template filled in: `:name` and `{*name}` replaced by `params[name]` (URI-encoded). */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:(\w+)|\{\*(\w+)\}/g, (_m, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    const v = params[name];
    if (v === undefined) throw new Error(`no value for :${name} in ${template}`);
    return encodeURIComponent(v);
  });
}

/** The parameter names of a template, in order. */
export const paramsOf = (template: string): string[] =>
  [...template.matchAll(/:(\w+)|\{\*(\w+)\}/g)].map((m) => (m[1] ?? m[2])!);
