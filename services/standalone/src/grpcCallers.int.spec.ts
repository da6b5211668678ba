/**
 * Every RPC of every service, generated from the table of callers (platform grpc/callers.ts), against the
 * standalone's gRPC servers on loopback (mutual TLS) and through its in-process transport: a call without
 * a client certificate, with a certificate of another CA, or from a service the table does not name for
 * the method is refused before the handler runs; the caller the table names is served (its empty request
 * may be refused by the handler, never by the transport). For a method the caller calls as `user`,
 * only with a valid user assertion signed by the gateway (platform grpc/userAssertion.ts): none, one
 * signed with another key, for another service, expired or altered is refused UNAUTHENTICATED. A forged
 * money call moves no money, an admin's adjustment with a subscriber's assertion included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuthResponse,
  IdentityServiceClient,
  RegisterRequest,
} from '@meridian/proto/meridian/identity/v1/identity';
import { AuditServiceClient } from '@meridian/proto/meridian/identity/v1/audit';
import { NotificationServiceClient } from '@meridian/proto/meridian/notification/v1/notification';
import { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import {
  AdjustBalanceRequest,
  AdjustmentOperation,
  BalanceAccount,
  Balances,
  GetBalancesRequest,
  LedgerServiceClient,
  SettleMaturityRequest,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { SupportServiceClient } from '@meridian/proto/meridian/support/v1/support';
import { callersOf, MESH_SERVICES, type MeshService } from '@meridian/platform/grpc/callers';
import {
  signUserAssertion,
  USER_ASSERTION_METADATA,
  type UserClaims,
} from '@meridian/platform/grpc/userAssertion';
import { meshChannelCredentials, meshNameOf, type MeshIdentity } from '@meridian/platform/grpc/mesh';
import { inProcessClientClass, setInProcessCaller } from '@meridian/platform/grpc/inProcess';
import { ephemeralMeshCertificates, keptMeshCertificates } from './meshCertificates.js';
import { startStandalone, type Standalone } from './standalone.js';

type Definition = grpc.ServiceDefinition;
const CLIENTS: Array<{ service?: Definition } & (new (...args: never[]) => grpc.Client)> = [
  IdentityServiceClient,
  AuditServiceClient,
  NotificationServiceClient,
  KycServiceClient,
  LedgerServiceClient,
  InvestmentServiceClient,
  WithdrawalServiceClient,
  SupportServiceClient,
];
const methods = CLIENTS.flatMap((C) => Object.values(C.service!)).map((m) => ({
  path: m.path,
  service: meshNameOf(m.path)! as MeshService,
  callers: callersOf(m.path) ?? {},
}));

const userMethods = methods.filter((m) => m.callers.gateway === 'user');

const raw = (b: Buffer) => b;
/** The refusals of the callers' check (admission.ts), as opposed to a handler's answer to an empty request. */
const CALLER_REFUSED = /client certificate of the platform is required|service may not call|user assertion/;
const ASSERTION_REFUSED = {
  code: grpc.status.UNAUTHENTICATED,
  details: expect.stringMatching(/user assertion/),
};
const SUBSCRIBER: UserClaims = {
  userId: 'subscriber-1',
  role: 'subscriber',
  sessionId: 'session-1',
  impersonatorId: '',
};

let app: Standalone;
let identities: Map<string, MeshIdentity>;
let forged: MeshIdentity;
const forgedDir = mkdtempSync(join(tmpdir(), 'meridian-forged-ca-'));
const clients = new Map<string, grpc.Client>();

beforeAll(async () => {
  app = await startStandalone({
    dataDir: ':memory:',
    env: { NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', WEB_DIST: '/nonexistent' },
  });
  identities = new Map(ephemeralMeshCertificates().map((id) => [id.name, id]));
  // the same names, signed by a CA of its own: what a process that made itself a "ledger" certificate has
  forged = keptMeshCertificates(forgedDir, ['gateway'])[0];
}, 60_000);

afterAll(async () => {
  for (const c of clients.values()) c.close();
  await app?.stop();
  rmSync(forgedDir, { recursive: true, force: true });
});

const addressOf = (service: MeshService): string =>
  ({
    identity: app.identityAddress,
    notification: app.notificationAddress,
    kyc: app.kycAddress,
    ledger: app.money.ledger.grpcAddress,
    investment: app.money.investment.grpcAddress,
    withdrawal: app.money.withdrawal.grpcAddress,
    support: app.supportAddress,
    gateway: '',
  })[service];

type As = 'plaintext' | 'tls without certificate' | 'forged CA' | MeshService;

/** A client on the wire to `service`, presenting `as`. */
function wireClient(service: MeshService, as: As): grpc.Client {
  const key = `${service}:${as}`;
  let client = clients.get(key);
  if (!client) {
    const ca = identities.get(service)!.ca;
    const credentials =
      as === 'plaintext'
        ? grpc.credentials.createInsecure()
        : as === 'tls without certificate'
          ? grpc.credentials.createSsl(ca)
          : meshChannelCredentials(as === 'forged CA' ? forged : identities.get(as)!, service);
    client = new grpc.Client(addressOf(service), credentials, {
      'grpc.ssl_target_name_override': service,
    });
    clients.set(key, client);
  }
  return client;
}

/** An in-process client to `service`, calling as `as` (undefined: as no service). */
function localClient(service: MeshService, as: MeshService | undefined): grpc.Client {
  const key = `local:${service}:${as}`;
  let client = clients.get(key);
  if (!client) {
    const Local = inProcessClientClass(grpc.Client);
    client = new Local(addressOf(service), grpc.credentials.createInsecure());
    setInProcessCaller(client, as);
    clients.set(key, client);
  }
  return client;
}

/** Metadata carrying the user assertion `token`. */
function withAssertion(token: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(USER_ASSERTION_METADATA, token);
  return metadata;
}

/** A valid assertion of the gateway for `service`. */
const gatewayAssertion = (service: MeshService, claims: UserClaims = SUBSCRIBER) =>
  signUserAssertion(identities.get('gateway')!, service, claims);

/** What a caller acting as `user` sends: a valid assertion; nothing for the others. */
const metadataFor = (path: string, caller: MeshService): grpc.Metadata =>
  callersOf(path)?.[caller] === 'user'
    ? withAssertion(gatewayAssertion(meshNameOf(path) as MeshService))
    : new grpc.Metadata();

/** The status of a request to `path` (empty by default): its code (0: answered) and details. */
function statusOf(
  client: grpc.Client,
  path: string,
  request: Buffer = Buffer.alloc(0),
  metadata: grpc.Metadata = new grpc.Metadata(),
): Promise<{ code: number; details: string }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, raw, raw, request, metadata, { deadline: Date.now() + 5_000 }, (err) =>
      resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' }),
    );
  });
}
const codeOf = async (client: grpc.Client, path: string, request?: Buffer, metadata?: grpc.Metadata) =>
  (await statusOf(client, path, request, metadata)).code;

/** An AdjustBalance request, encoded: $100.00 added to the user's deposit balance by `caller` saying "admin". */
const adjustBalanceBytes = (userId: string, caller: { userId: string; sessionId: string }, reason: string) =>
  Buffer.from(
    AdjustBalanceRequest.encode(
      AdjustBalanceRequest.fromPartial({
        caller,
        callerRole: 'admin',
        userId,
        account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
        operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
        amount: '100.00',
        reason,
      }),
    ).finish(),
  );

const allowed = (callers: object) => Object.keys(callers) as MeshService[];
const notAllowed = (callers: object) => MESH_SERVICES.filter((s) => !(s in callers));

describe('every RPC of every service, from the table of callers', () => {
  it('the table names the callers of every method of every service', () => {
    const missing = methods.filter((m) => allowed(m.callers).length === 0).map((m) => m.path);
    expect(missing).toEqual([]);
  });

  it.each(methods)('$path: refused without a certificate of the platform', async ({ path, service }) => {
    for (const as of ['plaintext', 'tls without certificate', 'forged CA'] as const)
      expect([as, await codeOf(wireClient(service, as), path)]).toEqual([as, grpc.status.UNAVAILABLE]);
    expect(await statusOf(localClient(service, undefined), path)).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      details: expect.stringMatching(CALLER_REFUSED),
    });
  });

  it.each(methods)('$path: refused to every service it does not name', async ({ path, service, callers }) => {
    const others = notAllowed(callers);
    if (others.length === 0) {
      console.log(`${path}: every service may call it (no other identity to try)`);
      return;
    }
    const refused = { code: grpc.status.PERMISSION_DENIED, details: expect.stringMatching(CALLER_REFUSED) };
    for (const other of others) {
      expect(await statusOf(wireClient(service, other), path)).toEqual(refused);
      expect(await statusOf(localClient(service, other), path)).toEqual(refused);
    }
  });

  it.each(methods)('$path: served to the callers the table names', async ({ path, service, callers }) => {
    // served: the handler answers (an empty request may well be refused by it, never by the callers' check)
    for (const caller of allowed(callers))
      for (const client of [wireClient(service, caller), localClient(service, caller)]) {
        const { code, details } = await statusOf(client, path, undefined, metadataFor(path, caller));
        expect(code).not.toBe(grpc.status.UNAVAILABLE);
        expect(details).not.toMatch(CALLER_REFUSED);
      }
  });

  it.each(userMethods)(
    '$path: the gateway without a user assertion is refused',
    async ({ path, service }) => {
      for (const client of [wireClient(service, 'gateway'), localClient(service, 'gateway')])
        expect(await statusOf(client, path)).toEqual(ASSERTION_REFUSED);
    },
  );

  it.each(userMethods)('$path: a forged user assertion is refused', async ({ path, service }) => {
    const gateway = identities.get('gateway')!;
    const other = MESH_SERVICES.find((s) => s !== service && s !== 'gateway')!;
    const valid = gatewayAssertion(service);
    const [header, payload, signature] = valid.split('.');
    const altered = (claims: object) =>
      [
        header,
        Buffer.from(
          JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...claims }),
        ).toString('base64url'),
        signature,
      ].join('.');
    const forgeries: Record<string, string> = {
      // the gateway's name, signed with the key of another service of the platform
      'another key': signUserAssertion(
        { name: 'gateway', key: identities.get(other)!.key },
        service,
        SUBSCRIBER,
      ),
      // a "gateway" certificate of a CA of its own
      'another CA': signUserAssertion(forged, service, SUBSCRIBER),
      'another service': signUserAssertion(gateway, other, SUBSCRIBER),
      expired: signUserAssertion(gateway, service, SUBSCRIBER, { now: Date.now() - 120_000 }),
      'too long a life': signUserAssertion(gateway, service, SUBSCRIBER, { lifetimeSeconds: 3_600 }),
      'role altered': altered({ role: 'admin' }),
      'user altered': altered({ sub: 'admin-1' }),
      unsigned: `${header}.${payload}.`,
      'not a JWT': 'admin',
    };
    for (const [forgery, token] of Object.entries(forgeries))
      for (const [transport, client] of [
        ['wire', wireClient(service, 'gateway')],
        ['in-process', localClient(service, 'gateway')],
      ] as const)
        expect([forgery, transport, await statusOf(client, path, undefined, withAssertion(token))]).toEqual([
          forgery,
          transport,
          ASSERTION_REFUSED,
        ]);
  });

  it("the gateway's certificate with a subscriber's assertion adjusts no balance; an admin's does", async () => {
    // a person the ledger knows (registered as the gateway does, on nobody's behalf)
    const registered = await new Promise<AuthResponse>((resolve, reject) =>
      wireClient('identity', 'gateway').makeUnaryRequest(
        '/meridian.identity.v1.IdentityService/Register',
        raw,
        (b: Buffer) => AuthResponse.decode(b),
        Buffer.from(
          RegisterRequest.encode(
            RegisterRequest.fromPartial({
              name: 'Adjusted Person',
              email: `adjusted-${Date.now()}@example.com`,
              password: 'Correct-Horse-Battery-9',
              phone: '+15550100100',
              country: 'US',
            }),
          ).finish(),
        ),
        new grpc.Metadata(),
        { deadline: Date.now() + 5_000 },
        (err, value) => (err ? reject(err) : resolve(value!)),
      ),
    );
    const userId = registered.user!.id;
    // what the request says of its caller is never believed: the assertion says who calls
    const adjust = adjustBalanceBytes(userId, { userId: 'admin-1', sessionId: 'admin-session' }, 'adjusted');
    const path = '/meridian.ledger.v1.LedgerService/AdjustBalance';
    const admin: UserClaims = {
      userId: 'admin-1',
      role: 'admin',
      sessionId: 'admin-session',
      impersonatorId: '',
    };
    for (const client of [wireClient('ledger', 'gateway'), localClient('ledger', 'gateway')])
      expect(await statusOf(client, path, adjust, withAssertion(gatewayAssertion('ledger')))).toMatchObject({
        code: grpc.status.PERMISSION_DENIED,
      });
    expect(await internalBalances(userId)).toMatchObject({ depositCents: 0 });
    // the same request with an admin's assertion is served (once the ledger has heard of the person)
    await vi.waitFor(
      async () =>
        expect(
          await statusOf(
            localClient('ledger', 'gateway'),
            path,
            adjust,
            withAssertion(gatewayAssertion('ledger', admin)),
          ),
        ).toEqual({ code: grpc.status.OK, details: '' }),
      { timeout: 10_000, interval: 100 },
    );
    expect(await internalBalances(userId)).toMatchObject({ depositCents: 10_000 });
  });

  it('a forged SettleMaturity or AdjustBalance moves no money', async () => {
    const userId = `forged-${Date.now()}`;
    const settle = Buffer.from(
      SettleMaturityRequest.encode(
        SettleMaturityRequest.fromPartial({
          userId,
          investmentId: 'inv-forged',
          principalCents: 1,
          maturityAmountCents: 101,
        }),
      ).finish(),
    );
    const adjust = adjustBalanceBytes(userId, { userId: 'someone', sessionId: 's' }, 'forged');
    const ledger = '/meridian.ledger.v1.LedgerService/';
    for (const as of ['support', 'kyc', 'forged CA'] as const) {
      expect(await codeOf(wireClient('ledger', as), `${ledger}SettleMaturity`, settle)).not.toBe(0);
      expect(await codeOf(wireClient('ledger', as), `${ledger}AdjustBalance`, adjust)).not.toBe(0);
    }
    // the gateway's own certificate and a valid subscriber's assertion, the request saying "admin"
    expect(
      await codeOf(
        wireClient('ledger', 'gateway'),
        `${ledger}AdjustBalance`,
        adjust,
        withAssertion(gatewayAssertion('ledger')),
      ),
    ).toBe(grpc.status.PERMISSION_DENIED);
    expect(await internalBalances(userId)).toMatchObject({
      depositCents: 0,
      profitCents: 0,
      investedCents: 0,
    });
  });
});

/** A user's balances, as the investment service reads them. */
function internalBalances(userId: string): Promise<Balances> {
  return new Promise<Balances>((resolve, reject) =>
    wireClient('ledger', 'investment').makeUnaryRequest(
      '/meridian.ledger.v1.LedgerService/GetBalances',
      raw,
      (b: Buffer) => Balances.decode(b),
      Buffer.from(GetBalancesRequest.encode({ userId, callerRole: '', internal: true }).finish()),
      new grpc.Metadata(),
      { deadline: Date.now() + 5_000 },
      (err, value) => (err ? reject(err) : resolve(value!)),
    ),
  );
}
