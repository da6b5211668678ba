import { describe, expect, it } from 'vitest';
import { correlatedLogger, createLogger, currentCorrelationId, withCorrelation } from './logger.js';
import { captureLog } from './testing/logCapture.js';

describe('logger', () => {
  it('is silent in tests unless a level is given', () => {
    expect(createLogger('svc', { env: { NODE_ENV: 'test' } }).level).toBe('silent');
    expect(createLogger('svc', { env: { NODE_ENV: 'production' } }).level).toBe('info');
    expect(createLogger('svc', { env: { LOG_LEVEL: 'debug' } }).level).toBe('debug');
  });

  it('adds the correlation id of the async context, once, and redacts secrets', async () => {
    const { lines, destination } = captureLog();
    const logger = createLogger('ledger', { level: 'info', destination });
    expect(currentCorrelationId()).toBeUndefined();
    await withCorrelation('corr-1', async () => {
      await Promise.resolve();
      expect(currentCorrelationId()).toBe('corr-1');
      logger.info({ password: 'hunter2' }, 'inside');
      correlatedLogger(logger).child({ part: 'x' }).info('child');
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({
      service: 'ledger',
      correlationId: 'corr-1',
      msg: 'inside',
      password: '[redacted]',
    });
    expect(lines[1]).toMatchObject({ correlationId: 'corr-1', part: 'x', msg: 'child' });
    expect(lines[2].correlationId).toBeUndefined();
    expect(withCorrelation(undefined, () => currentCorrelationId())).toMatch(/^[0-9a-f-]{36}$/);
  });
});
