import type { Request } from 'express';
import type { GatewayConfig } from '../config.js';
import { DEFAULT_GRPC_DEADLINE_MS } from '../grpcClients.js';
import { correlationId } from './middleware.js';

/** The options every gRPC call of a request carries: its correlation id and the gateway's deadline. */
export interface GrpcContext {
  correlationId: string;
  deadlineMs: number;
}

/** `ctxOf(config)(req)`: the one place a route builds the gRPC call context of a request. */
export const ctxOf =
  (config: Pick<GatewayConfig, 'grpcDeadlineMs'>) =>
  (req: Request): GrpcContext => ({
    correlationId: correlationId(req),
    deadlineMs: config.grpcDeadlineMs ?? DEFAULT_GRPC_DEADLINE_MS,
  });

/**
 * The client's address as Express resolves it (`req.ip`, through the proxies TRUST_PROXY trusts): what
 * every Caller carries into the events a request causes (the audit trail's "from which address").
 */
export const clientAddress = (req: Pick<Request, 'ip'>): string => req.ip ?? '';
