import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { grpcErrorMessage } from '@meridian/platform/grpc/index';
import { SERVICE_UNAVAILABLE, SOMETHING_WENT_WRONG } from './refusals.js';

/** An error that is answered as `{ message }` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Retry-After of a 503 answered for a service that could not answer (seconds). */
export const RETRY_AFTER_SECONDS = '2';

export function isServiceError(err: unknown): err is ServiceError {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    'details' in err &&
    typeof (err as ServiceError).code === 'number'
  );
}

/** gRPC status -> HTTP status (docs/CONVENTIONS.md "Errors"). */
export function httpStatusOfGrpc(code: number): number {
  switch (code) {
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.OUT_OF_RANGE:
      return 400;
    case GrpcStatus.UNAUTHENTICATED:
      return 401;
    case GrpcStatus.PERMISSION_DENIED:
      return 403;
    case GrpcStatus.NOT_FOUND:
      return 404;
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return 409;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 503;
    default:
      return 500;
  }
}

/** The HTTP answer for any error: status and a message meant for people (never internals). */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isServiceError(err)) {
    const status = httpStatusOfGrpc(err.code);
    if (status === 500) return new HttpError(500, SOMETHING_WENT_WRONG);
    // a service that is down, restarting or catching up: the client may retry the same request shortly
    if (status === 503)
      return new HttpError(503, SERVICE_UNAVAILABLE, { 'Retry-After': RETRY_AFTER_SECONDS });
    return new HttpError(status, grpcErrorMessage(err) || SOMETHING_WENT_WRONG);
  }
  return new HttpError(500, SOMETHING_WENT_WRONG);
}
