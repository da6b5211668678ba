/** gRPC clients of the money services (ledger, investment, withdrawal), used by gateway/src/http/money*.ts. */
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { InvestmentServiceClient } from '@meridian/proto/meridian/investment/v1/investment';
import { WithdrawalServiceClient } from '@meridian/proto/meridian/withdrawal/v1/withdrawal';
import { createGrpcClient, type GrpcClientOptions } from '@meridian/platform/grpc/index';
import { asGateway } from './grpcClients.js';

export type { LedgerServiceClient, InvestmentServiceClient, WithdrawalServiceClient };

export interface MoneyClients {
  ledger: LedgerServiceClient;
  investment: InvestmentServiceClient;
  withdrawal: WithdrawalServiceClient;
}

/** `options.inProcess`: the services run in this process (the standalone): their handlers are called directly. */
export function createMoneyClients(
  targets: {
    ledgerGrpcUrl?: string;
    investmentGrpcUrl?: string;
    withdrawalGrpcUrl?: string;
  },
  clientOptions?: GrpcClientOptions,
): MoneyClients {
  const options = asGateway(clientOptions);
  return {
    ledger: createGrpcClient(LedgerServiceClient, targets.ledgerGrpcUrl ?? '127.0.0.1:50054', options),
    investment: createGrpcClient(
      InvestmentServiceClient,
      targets.investmentGrpcUrl ?? '127.0.0.1:50055',
      options,
    ),
    withdrawal: createGrpcClient(
      WithdrawalServiceClient,
      targets.withdrawalGrpcUrl ?? '127.0.0.1:50056',
      options,
    ),
  };
}

export function closeMoneyClients(c: MoneyClients): void {
  c.ledger.close();
  c.investment.close();
  c.withdrawal.close();
}
