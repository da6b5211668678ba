import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { commonEnvValue } from './config.js';
import { activeTraceIds } from './tracing.js';

export type Logger = PinoLogger;

interface LogContext {
  correlationId: string;
}

const context = new AsyncLocalStorage<LogContext>();
const BOUND = Symbol('correlationBound');

/** Runs fn with `id` as the current correlation id (HTTP request, gRPC call, consumed event). */
export function withCorrelation<T>(id: string | undefined | null, fn: () => T): T {
  return context.run({ correlationId: id || randomUUID() }, fn);
}

/** The correlation id of the current async context, if any. */
export function currentCorrelationId(): string | undefined {
  return context.getStore()?.correlationId;
}

/** A fresh id for a new flow (HTTP request without an inbound id, scheduled job). */
export const newCorrelationId = (): string => randomUUID();

/**
 * pino logger for a service. Level: options.level ?? LOG_LEVEL ?? (NODE_ENV=test ? 'silent' : 'info').
 * Every line logged inside withCorrelation(...) carries `correlationId` (a pino mixin), including
 * the lines of child loggers; every line logged while a span is active (tracing.ts) carries its
 * `trace_id` and `span_id`.
 */
export function createLogger(
  service: string,
  options: { level?: string; env?: Record<string, string | undefined>; destination?: DestinationStream } = {},
): Logger {
  const env = options.env ?? process.env;
  const level =
    options.level ??
    commonEnvValue(env, 'LOG_LEVEL') ??
    (commonEnvValue(env, 'NODE_ENV') === 'test' ? 'silent' : 'info');
  const config: LoggerOptions = {
    level,
    base: { service },
    mixin(_merge, _level, logger) {
      const ids = activeTraceIds();
      if ((logger as unknown as Record<symbol, unknown>)[BOUND]) return ids ?? {};
      const id = currentCorrelationId();
      return id ? { correlationId: id, ...ids } : (ids ?? {});
    },
    redact: {
      paths: [
        'password',
        '*.password',
        'token',
        '*.token',
        'code',
        '*.code',
        'secret',
        '*.secret',
        'authorization',
        '*.authorization',
        'cookie',
        '*.cookie',
      ],
      censor: '[redacted]',
    },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/** A child logger bound to the current correlation id (for handing to code outside the context). */
export function correlatedLogger(logger: Logger, correlationId = currentCorrelationId()): Logger {
  if (!correlationId) return logger;
  const child = logger.child({ correlationId });
  // children of pino loggers inherit by prototype: the mixin then skips its own correlationId
  (child as unknown as Record<symbol, unknown>)[BOUND] = true;
  return child;
}
