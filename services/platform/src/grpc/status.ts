import * as grpc from '@grpc/grpc-js';
import { ConcurrencyError, DomainError, type ErrorKind } from '../eventSourcing/errors.js';

/** Metadata (trailers) our servers attach to a DomainError status. */
export const ERROR_KIND_KEY = 'x-error-kind';
export const ERROR_CODE_KEY = 'x-error-code';
export const CORRELATION_ID_KEY = 'x-correlation-id';

export const GENERIC_ERROR_MESSAGE = 'Something went wrong, please try again later';
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable, please try again';

const KIND_TO_STATUS: Record<ErrorKind, grpc.status> = {
  invalid: grpc.status.INVALID_ARGUMENT,
  precondition: grpc.status.FAILED_PRECONDITION,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  forbidden: grpc.status.PERMISSION_DENIED,
  not_found: grpc.status.NOT_FOUND,
  conflict: grpc.status.ALREADY_EXISTS,
  rate_limited: grpc.status.RESOURCE_EXHAUSTED,
  unavailable: grpc.status.UNAVAILABLE,
};

export const domainKindToGrpcStatus = (kind: ErrorKind): grpc.status =>
  KIND_TO_STATUS[kind] ?? grpc.status.INTERNAL;

/** Server side: any thrown value -> a gRPC status. Unknown errors become INTERNAL with a generic message. */
export function toGrpcStatus(err: unknown): {
  code: grpc.status;
  details: string;
  metadata: grpc.Metadata;
  internal: boolean;
} {
  const metadata = new grpc.Metadata();
  if (err instanceof DomainError) {
    metadata.set(ERROR_KIND_KEY, err.kind);
    if (err.code) metadata.set(ERROR_CODE_KEY, err.code);
    return { code: domainKindToGrpcStatus(err.kind), details: err.message, metadata, internal: false };
  }
  if (err instanceof ConcurrencyError) {
    metadata.set(ERROR_KIND_KEY, 'conflict');
    metadata.set(ERROR_CODE_KEY, 'concurrency');
    return {
      code: grpc.status.ABORTED,
      details: 'The record was changed at the same time by another request, please try again',
      metadata,
      internal: false,
    };
  }
  return { code: grpc.status.INTERNAL, details: GENERIC_ERROR_MESSAGE, metadata, internal: true };
}

/** Gateway side: gRPC status -> HTTP status (docs/CONVENTIONS.md §Errors). */
export function grpcStatusToHttp(code: grpc.status | number | undefined): number {
  switch (code) {
    case grpc.status.OK:
      return 200;
    case grpc.status.INVALID_ARGUMENT:
    case grpc.status.FAILED_PRECONDITION:
    case grpc.status.OUT_OF_RANGE:
      return 400;
    case grpc.status.UNAUTHENTICATED:
      return 401;
    case grpc.status.PERMISSION_DENIED:
      return 403;
    case grpc.status.NOT_FOUND:
      return 404;
    case grpc.status.ALREADY_EXISTS:
    case grpc.status.ABORTED:
      return 409;
    case grpc.status.RESOURCE_EXHAUSTED:
      return 429;
    case grpc.status.UNAVAILABLE:
      return 503;
    case grpc.status.DEADLINE_EXCEEDED:
      return 504;
    case grpc.status.UNIMPLEMENTED:
      return 501;
    default:
      return 500;
  }
}

const SHOWN = new Set<number>([
  grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.OUT_OF_RANGE,
  grpc.status.UNAUTHENTICATED,
  grpc.status.PERMISSION_DENIED,
  grpc.status.NOT_FOUND,
  grpc.status.ALREADY_EXISTS,
  grpc.status.ABORTED,
  grpc.status.RESOURCE_EXHAUSTED,
]);

function isServiceError(err: unknown): err is grpc.ServiceError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'number' &&
    'details' in err
  );
}

/**
 * The message to show people for a failed call: the status details for statuses that carry a
 * message meant for people (4xx kinds, and UNAVAILABLE raised as a DomainError), a generic text for
 * anything else (transport failures, INTERNAL) — never a stack or driver text.
 */
export function grpcErrorMessage(err: unknown): string {
  if (!isServiceError(err)) return GENERIC_ERROR_MESSAGE;
  const fromDomain = err.metadata?.get(ERROR_KIND_KEY).length > 0;
  if (SHOWN.has(err.code) && err.details) return err.details;
  if (err.code === grpc.status.UNAVAILABLE)
    return fromDomain && err.details ? err.details : UNAVAILABLE_MESSAGE;
  if (err.code === grpc.status.DEADLINE_EXCEEDED) return UNAVAILABLE_MESSAGE;
  return GENERIC_ERROR_MESSAGE;
}

const STATUS_TO_KIND: Partial<Record<number, ErrorKind>> = {
  [grpc.status.INVALID_ARGUMENT]: 'invalid',
  [grpc.status.OUT_OF_RANGE]: 'invalid',
  [grpc.status.FAILED_PRECONDITION]: 'precondition',
  [grpc.status.UNAUTHENTICATED]: 'unauthenticated',
  [grpc.status.PERMISSION_DENIED]: 'forbidden',
  [grpc.status.NOT_FOUND]: 'not_found',
  [grpc.status.ALREADY_EXISTS]: 'conflict',
  [grpc.status.ABORTED]: 'conflict',
  [grpc.status.RESOURCE_EXHAUSTED]: 'rate_limited',
  [grpc.status.UNAVAILABLE]: 'unavailable',
  [grpc.status.DEADLINE_EXCEEDED]: 'unavailable',
};

/** Service-to-service: a failed call -> DomainError (kind from the status) to rethrow; else the error itself. */
export function domainErrorFromGrpc(err: unknown): unknown {
  if (!isServiceError(err)) return err;
  const kind = STATUS_TO_KIND[err.code];
  if (!kind) return err;
  const code = err.metadata?.get(ERROR_CODE_KEY)[0];
  return new DomainError(kind, grpcErrorMessage(err), typeof code === 'string' ? code : undefined);
}
