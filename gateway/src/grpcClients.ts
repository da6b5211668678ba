import { Metadata, status as GrpcStatus, type Client } from '@grpc/grpc-js';
import { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { NotificationServiceClient } from '@meridian/proto/meridian/notification/v1/notification';
import { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import { SupportServiceClient } from '@meridian/proto/meridian/support/v1/support';
import {
  createGrpcClient,
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  ServingStatus,
  type GrpcClientOptions,
  type HealthCheckRequest,
  type HealthCheckResponse,
} from '@meridian/platform/grpc/index';

export { callUnary } from '@meridian/platform/grpc/index';
export type { IdentityServiceClient, NotificationServiceClient, KycServiceClient, SupportServiceClient };

export const DEFAULT_GRPC_DEADLINE_MS = 10_000;

/** The gateway's clients call as the gateway (its certificate, when the process speaks mutual TLS). */
export const asGateway = (options?: GrpcClientOptions): GrpcClientOptions => ({
  caller: 'gateway',
  ...options,
});

/** `options.inProcess`: the services run in this process (the standalone): their handlers are called directly. */
export const createIdentityClient = (target: string, options?: GrpcClientOptions): IdentityServiceClient =>
  createGrpcClient(IdentityServiceClient, target, asGateway(options));
export const createNotificationClient = (
  target: string,
  options?: GrpcClientOptions,
): NotificationServiceClient => createGrpcClient(NotificationServiceClient, target, asGateway(options));
export const createKycClient = (target: string, options?: GrpcClientOptions): KycServiceClient =>
  createGrpcClient(KycServiceClient, target, asGateway(options));
/** Its answers may carry an attachment of up to 10 MB (grpc-js takes 4 MB by default). */
export const createSupportClient = (target: string, options?: GrpcClientOptions): SupportServiceClient =>
  createGrpcClient(SupportServiceClient, target, {
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    ...asGateway(options),
  });

/**
 * grpc.health.v1 Check over the channel of an existing client: true when the server answers SERVING.
 * A server without the health service (UNIMPLEMENTED) still proves it is up and answering.
 */
export function checkHealth(client: Client, service = '', deadlineMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    client.makeUnaryRequest<HealthCheckRequest, HealthCheckResponse>(
      '/grpc.health.v1.Health/Check',
      encodeHealthCheckRequest,
      decodeHealthCheckResponse,
      { service },
      new Metadata(),
      { deadline: Date.now() + deadlineMs },
      (err, value) =>
        resolve(err ? err.code === GrpcStatus.UNIMPLEMENTED : value?.status === ServingStatus.SERVING),
    );
  });
}
