/** Protobuf codecs of the money events notification consumes (Kafka bus). */
import * as ledger from '@meridian/proto/meridian/ledger/v1/events';
import * as investment from '@meridian/proto/meridian/investment/v1/events';
import * as withdrawal from '@meridian/proto/meridian/withdrawal/v1/events';

export const moneyEmailEventCodecs = {
  DepositConfirmed: ledger.DepositConfirmed,
  DepositRejected: ledger.DepositRejected,
  ReferralBonusPaid: ledger.ReferralBonusPaid,
  InvestmentRequested: investment.InvestmentRequested,
  InvestmentApproved: investment.InvestmentApproved,
  InvestmentRejected: investment.InvestmentRejected,
  InvestmentMatured: investment.InvestmentMatured,
  WithdrawalRequested: withdrawal.WithdrawalRequested,
  WithdrawalApproved: withdrawal.WithdrawalApproved,
  WithdrawalRejected: withdrawal.WithdrawalRejected,
};
