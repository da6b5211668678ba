import { credentials, Metadata, type CallOptions, type Client, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { NotificationServiceClient } from '@meridian/proto/meridian/notification/v1/notification';

export type { IdentityServiceClient, NotificationServiceClient };

export function createIdentityClient(target: string): IdentityServiceClient {
  return new IdentityServiceClient(target, credentials.createInsecure());
}

export function createNotificationClient(target: string): NotificationServiceClient {
  return new NotificationServiceClient(target, credentials.createInsecure());
}

/** The last overload of every ts-proto grpc-js client method. */
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

export interface CallContext {
  correlationId: string;
  deadlineMs?: number;
}

/** One unary call with a deadline and the x-correlation-id metadata. */
export function unary<Req, Res>(client: Client, method: UnaryMethod<Req, Res>, request: Req, ctx: CallContext): Promise<Res> {
  const metadata = new Metadata();
  if (ctx.correlationId) metadata.set('x-correlation-id', ctx.correlationId);
  const deadline = new Date(Date.now() + (ctx.deadlineMs ?? 10_000));
  return new Promise<Res>((resolve, reject) => {
    method.call(client, request, metadata, { deadline }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

// grpc.health.v1.Health/Check, encoded by hand (HealthCheckRequest{service=1}, HealthCheckResponse{status=1}).
const SERVING = 1;

/** True when the server behind `client` answers the standard health check with SERVING. */
export function checkHealth(client: Client, service = '', deadlineMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    client.makeUnaryRequest<{ service: string }, number>(
      '/grpc.health.v1.Health/Check',
      (req) => {
        const w = new BinaryWriter();
        if (req.service) w.uint32(10).string(req.service);
        return Buffer.from(w.finish());
      },
      (buf) => {
        const r = new BinaryReader(buf);
        let statusValue = 0;
        while (r.pos < r.len) {
          const tag = r.uint32();
          if (tag >>> 3 === 1 && (tag & 7) === 0) statusValue = r.int32();
          else r.skip(tag & 7);
        }
        return statusValue;
      },
      { service },
      new Metadata(),
      { deadline: new Date(Date.now() + deadlineMs) },
      (err, value) => {
        if (err) {
          // A server without the health service still proves it is up and answering.
          resolve(err.code === GrpcStatus.UNIMPLEMENTED);
          return;
        }
        resolve(value === SERVING);
      },
    );
  });
}
