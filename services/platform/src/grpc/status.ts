import * as grpc from '@grpc/grpc-js';
import { ConcurrencyError, DomainError, type ErrorKind } from '../eventSourcing/errors.js';

/** Metadata (trailers) our servers attach to a DomainError status. */
export const ERROR_KIND_KEY = 'x-error-kind';
export const ERROR_CODE_KEY = 'x-error-code';
export const CORRELATION_ID_KEY = 'x-correlation-id';

export const GENERIC_ERROR_MESSAGE = 'Something went wrong, please try again later';
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable, please try again';

/** Per error kind: the gRPC status servers answer, the HTTP status the gateway shows (CONVENTIONS.md §Errors). */
const KINDS: Record<ErrorKind, { status: grpc.status; http: number }> = {
  invalid: { status: grpc.status.INVALID_ARGUMENT, http: 400 },
  precondition: { status: grpc.status.FAILED_PRECONDITION, http: 400 },
  unauthenticated: { status: grpc.status.UNAUTHENTICATED, http: 401 },
  forbidden: { status: grpc.status.PERMISSION_DENIED, http: 403 },
  not_found: { status: grpc.status.NOT_FOUND, http: 404 },
  conflict: { status: grpc.status.ALREADY_EXISTS, http: 409 },
  rate_limited: { status: grpc.status.RESOURCE_EXHAUSTED, http: 429 },
  unavailable: { status: grpc.status.UNAVAILABLE, http: 503 },
};

export const domainKindToGrpcStatus = (kind: ErrorKind): grpc.status =>
  KINDS[kind]?.status ?? grpc.status.INTERNAL;

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

/** Gateway side: gRPC status -> HTTP status (docs/CONVENTIONS.md §Errors): by its kind, else 500. */
export function grpcStatusToHttp(code: grpc.status | number | undefined): number {
  if (code === grpc.status.OK) return 200;
  if (code === grpc.status.UNIMPLEMENTED) return 501;
  if (code === grpc.status.DEADLINE_EXCEEDED) return 504;
  const kind = code === undefined ? undefined : STATUS_TO_KIND[code];
  return kind ? KINDS[kind].http : 500;
}

/** The statuses whose details are meant for people: those of the 4xx kinds. */
const isShown = (code: number): boolean => Math.floor(grpcStatusToHttp(code) / 100) === 4;

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
  if (isShown(err.code) && err.details) return err.details;
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
