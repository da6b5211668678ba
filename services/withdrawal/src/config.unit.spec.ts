import { describe, expect, it } from 'vitest';
import { ConfigError } from '@meridian/platform/config';
import { parseWithdrawalConfig } from './config.js';

describe('withdrawal config', () => {
  it('defaults', () => {
    expect(parseWithdrawalConfig({})).toMatchObject({
      WITHDRAWAL_GRPC_ADDR: '0.0.0.0:50056',
      LEDGER_GRPC_URL: '127.0.0.1:50054',
    });
  });
  it('a bad value stops start-up naming the variable', () => {
    expect(() => parseWithdrawalConfig({ WITHDRAWAL_GRPC_ADDR: 'x' })).toThrow(ConfigError);
    expect(() => parseWithdrawalConfig({ LEDGER_GRPC_URL: 'nope' })).toThrow(/LEDGER_GRPC_URL/);
  });
});
