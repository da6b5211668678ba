/**
 * Typed errors. A DomainError carries a kind that transports map to status codes
 * (gRPC status in adapters/, HTTP status in the gateway) and a message meant for people.
 */
export type ErrorKind =
  | 'invalid' // 400 / INVALID_ARGUMENT
  | 'unauthenticated' // 401 / UNAUTHENTICATED
  | 'forbidden' // 403 / PERMISSION_DENIED
  | 'not_found' // 404 / NOT_FOUND
  | 'conflict' // 409 / ALREADY_EXISTS or ABORTED
  | 'precondition' // 400 / FAILED_PRECONDITION (state does not allow it)
  | 'rate_limited' // 429 / RESOURCE_EXHAUSTED
  | 'unavailable'; // 503 / UNAVAILABLE

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string, code?: string) => new DomainError('invalid', message, code);
export const forbidden = (message: string, code?: string) => new DomainError('forbidden', message, code);
export const notFound = (message: string, code?: string) => new DomainError('not_found', message, code);
export const conflict = (message: string, code?: string) => new DomainError('conflict', message, code);
export const precondition = (message: string, code?: string) =>
  new DomainError('precondition', message, code);
export const unauthenticated = (message: string, code?: string) =>
  new DomainError('unauthenticated', message, code);

/**
 * Another writer changed what an attempt read before the attempt wrote: nothing was written, and the attempt
 * may run again from the start (util/async.ts retryAfterConflict).
 */
export class WriteConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteConflict';
  }
}

/** Raised by an event store when the stream is not at the expected version. */
export class ConcurrencyError extends WriteConflict {
  constructor(
    readonly streamId: string,
    readonly expected: number | 'any',
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected version ${String(expected)}, found ${actual}`);
    this.name = 'ConcurrencyError';
  }
}
export const rateLimited = (message: string, code?: string) => new DomainError('rate_limited', message, code);
export const unavailable = (message: string, code?: string) => new DomainError('unavailable', message, code);
