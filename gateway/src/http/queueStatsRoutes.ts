/**
 * GET /api/admin/queueStats (admin): the size of every admin queue in one answer,
 * `{ deposits, investments, withdrawals, kyc }`, each from its service's read-model counter (the dashboard
 * never loads a whole queue to count it). The four gRPC calls run in parallel.
 */
import type { Router } from 'express';
import { QueueCountRequest } from '@meridian/proto/meridian/common/v1/common';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import type { GatewayConfig } from '../config.js';
import type { MoneyClients } from '../moneyClients.js';
import { sessionOf, type Auth } from './auth.js';
import { ctxOf } from './grpcContext.js';
import { queueStatsAnswer } from './answers.js';
import { TAGS, json, route, routeTable, routerOf, type CallingContext } from './routeTable.js';

export interface QueueStatsRouteDeps {
  config: GatewayConfig;
  kyc: KycServiceClient;
  money: MoneyClients;
  auth: Auth;
}

export interface QueueStats {
  deposits: number;
  investments: number;
  withdrawals: number;
  kyc: number;
}

interface QueueStatsContext extends CallingContext {
  auth: Auth;
  kyc: KycServiceClient;
  money: MoneyClients;
}

export const QUEUE_STATS_ROUTES = routeTable<QueueStatsContext>([
  route({
    method: 'get',
    path: '/api/admin/queueStats',
    tag: TAGS.audit,
    summary: 'Admin queue sizes',
    description:
      'How many deposits, investments, withdrawals and KYC cases wait for a decision, from the counters each service keeps in its read model (one call; the dashboard keeps it live from the queue pushes).',
    access: 'admin',
    money: true,
    ok: json(queueStatsAnswer, 'The size of every queue.'),
    handler: async ({ kyc, money }, { call }, _req, res): Promise<QueueStats> => {
      const s = sessionOf(res);
      const count = QueueCountRequest.fromPartial({ caller: s.caller, callerRole: s.principal.role });
      const [deposits, investments, withdrawals, cases] = await Promise.all([
        call(money.ledger, 'countPendingDeposits', count),
        call(money.investment, 'countPending', count),
        call(money.withdrawal, 'countPending', count),
        call(kyc, 'countPending', count),
      ]);
      return {
        deposits: deposits.count,
        investments: investments.count,
        withdrawals: withdrawals.count,
        kyc: cases.count,
      };
    },
  }),
]);

export function queueStatsRouter({ config, kyc, money, auth }: QueueStatsRouteDeps): Router {
  return routerOf(QUEUE_STATS_ROUTES, { auth, kyc, money, ctx: ctxOf(config) }, '/api');
}
