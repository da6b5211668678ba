/**
 * The ledger side of a calling service's test stack (investment, withdrawal): the real ledger
 * (start()) on its own SQLite ':memory:' store and an in-process bus to share, reached by a real gRPC
 * client, plus real LedgerPorts over gRPC (`@meridian/ledger/client`) for the service under test.
 * Exported as `@meridian/ledger/testing/callerStack`; each service's testing/harness.ts adds itself.
 */
import type * as grpc from '@grpc/grpc-js';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import { topicOf, type EventBus } from '@meridian/platform/ports/eventBus';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { createGrpcLedger } from '../client/ledgerPort.grpc.js';
import type { LedgerPort } from '../client/ledgerPort.js';
import { parseLedgerConfig } from '../config.js';
import { start as startLedger } from '../main.js';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { isLiveUser } from '../projections/views.js';
import { ledgerInvariantProblems } from './invariants.js';
import { type Call, identityEvent, ledgerCaller, userRegistered } from './ledgerClient.js';

export type { Call } from './ledgerClient.js';

export const ADMIN = { userId: 'admin-1', role: 'admin' };
export const ADMIN_2 = { userId: 'admin-2', role: 'admin' };

export const caller = (userId: string) => ({ userId, sessionId: '', impersonatorId: '', correlationId: '' });

export async function startLedgerForCallers(logger: Logger) {
  const bus: EventBus = createInProcEventBus({ path: ':memory:' });
  const ledgerStore = createSqliteServiceStore(':memory:');
  const ledger = await startLedger({
    config: parseLedgerConfig({ NODE_ENV: 'test', LEDGER_GRPC_ADDR: '127.0.0.1:0' }),
    store: ledgerStore,
    bus,
    logger,
  });
  const ledgerClient = createGrpcClient(LedgerServiceClient, ledger.grpcAddress);
  const ports: LedgerPort[] = [];
  const realLedger = () => {
    const port = createGrpcLedger(ledger.grpcAddress);
    ports.push(port);
    return port;
  };
  const registerUser = async (userId: string, name: string, email: string) => {
    await bus.publish(topicOf('identity'), [
      identityEvent('UserRegistered', userRegistered(userId, { name, email })),
    ]);
    await waitFor(() => isLiveUser(ledgerStore, userId), { message: `the ledger knows user ${userId}` });
  };
  const call = ledgerCaller(ledgerClient);
  // The ledger adjusts only users identity announced: this stack stands in for identity, so a user
  // the calling service's test funds without registering is announced first.
  const ledgerCall: Call<LedgerServiceClient> = async (method, request) => {
    const userId = (request as { userId?: string }).userId;
    if (method === 'adjustBalance' && userId && !(await isLiveUser(ledgerStore, userId)))
      await registerUser(userId, 'Test User', `${userId}@example.com`);
    return call(method, request);
  };

  return {
    bus,
    ledgerStore,
    ledgerAddress: ledger.grpcAddress,
    ledgerCall,
    realLedger,
    /** Registers a user in the directory as identity would (UserRegistered on the bus), once consumed. */
    registerUser,
    balances: (userId: string) =>
      ledgerCall('getBalances', { caller: caller(ADMIN.userId), callerRole: 'admin', userId }),
    /** The admin the calling service's tests decide as. */
    admin: ADMIN,
    /** What the ledger's invariants find wrong in its store. */
    ledgerProblems: () => ledgerInvariantProblems(ledgerStore),
    /** After the service under test stopped: its ledger ports, the ledger, the bus, the ledger's store. */
    async stop() {
      ledgerClient.close();
      for (const p of ports) p.close?.();
      await ledger.stop();
      await bus.close();
      await ledgerStore.close();
    },
  };
}

/** The gRPC error of a rejected call (code and details). */
export async function grpcError(
  promise: Promise<unknown>,
): Promise<{ code: number; details: string; errorCode?: string }> {
  try {
    await promise;
  } catch (err) {
    const e = err as grpc.ServiceError;
    const code = e.metadata?.get('x-error-code')[0];
    return { code: e.code, details: e.details, ...(typeof code === 'string' ? { errorCode: code } : {}) };
  }
  throw new Error('expected the call to fail');
}
