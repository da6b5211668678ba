import { describe, expect, it } from 'vitest';
import { ConfigError } from '@meridian/platform/config';
import { DEV_DEFAULTS, parseKycConfig } from './config.js';

describe('kyc config', () => {
  it('has development defaults', () => {
    const c = parseKycConfig({});
    expect(c).toMatchObject({
      KYC_GRPC_ADDR: '0.0.0.0:50053',
      KYC_HTTP_ADDR: '0.0.0.0:50063',
      DATA_DIR: './data',
    });
    expect(c.KYC_INTERNAL_TOKEN).toBe(DEV_DEFAULTS.KYC_INTERNAL_TOKEN);
    expect(c.usedDevDefaults).toEqual(['KYC_INTERNAL_TOKEN']);
  });

  it('requires KYC_INTERNAL_TOKEN in production and names bad variables', () => {
    expect(() => parseKycConfig({ NODE_ENV: 'production' })).toThrow(
      /KYC_INTERNAL_TOKEN: is required in production/,
    );
    expect(() => parseKycConfig({ KYC_HTTP_ADDR: 'nope', KYC_INTERNAL_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => parseKycConfig({ KYC_HTTP_ADDR: 'nope' })).toThrow(/KYC_HTTP_ADDR: must be host:port/);
    const token = 'x'.repeat(32);
    expect(parseKycConfig({ NODE_ENV: 'production', KYC_INTERNAL_TOKEN: token })).toMatchObject({
      KYC_INTERNAL_TOKEN: token,
      usedDevDefaults: [],
    });
  });
});
