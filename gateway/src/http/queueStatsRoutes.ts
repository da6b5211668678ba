/**
 * GET /api/admin/queueStats (admin): the size of every admin queue in one answer,
 * `{ deposits, investments, withdrawals, kyc }`, each from its service's read-model counter (issue 14:
 * the dashboard never loads a whole queue to count it). The four gRPC calls run in parallel.
 */
import { Router, type Response } from 'express';
import * as kycPb from '@meridian/proto/meridian/kyc/v1/kyc';
import type { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import * as inv from '@meridian/proto/meridian/investment/v1/investment';
import * as wd from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import type { GatewayConfig } from '../config.js';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import { sessionOf, type Auth } from './auth.js';
import { ctxOf } from './grpcContext.js';

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

export function queueStatsRouter({ config, kyc, money, auth }: QueueStatsRouteDeps): Router {
  const ctx = ctxOf(config);
  const caller = (res: Response) => {
    const s = sessionOf(res);
    return { caller: s.caller, callerRole: s.principal.role };
  };
  const r = Router();

  r.get('/admin/queueStats', auth.requireAdmin, async (req, res) => {
    const who = caller(res);
    const [deposits, investments, withdrawals, cases] = await Promise.all([
      callUnary(
        money.ledger,
        'countPendingDeposits',
        lg.CountPendingDepositsRequest.fromPartial(who),
        ctx(req),
      ),
      callUnary(money.investment, 'countPending', inv.CountPendingRequest.fromPartial(who), ctx(req)),
      callUnary(money.withdrawal, 'countPending', wd.CountPendingRequest.fromPartial(who), ctx(req)),
      callUnary(kyc, 'countPending', kycPb.CountPendingRequest.fromPartial(who), ctx(req)),
    ]);
    const stats: QueueStats = {
      deposits: deposits.count,
      investments: investments.count,
      withdrawals: withdrawals.count,
      kyc: cases.count,
    };
    res.json(stats);
  });

  return r;
}
