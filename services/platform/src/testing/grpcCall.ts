/**
 * A service's gRPC methods as its tests call them: `call(method, partialRequest)` over a real client, the
 * request completed with its defaults by the method's request codec first (ts-proto encodes a missing
 * string as "undefined"). Each harness names its codecs literally, one a method: `createDeposit:
 * CreateDepositRequest`, both decisions of a kind: its Decide…Request.
 */
import type * as grpc from '@grpc/grpc-js';
import { callUnary, type RequestOf, type ResponseOf, type UnaryMethod } from '../grpc/client.js';

/** The request codec of each unary method of client `C`. */
export type RequestCodecs<C> = {
  [M in UnaryMethod<C>]: { fromPartial(object: Partial<RequestOf<C, M>>): RequestOf<C, M> };
};

/** `call(method, partialRequest)` on a service's client, the request completed with its defaults. */
export type Call<C> = <M extends UnaryMethod<C>>(
  method: M,
  request: Partial<RequestOf<C, M>>,
) => Promise<ResponseOf<C, M>>;

/** `call` over `client`, each request completed by its method's codec of `codecs`. */
export const codecCaller =
  <C extends grpc.Client>(client: C, codecs: RequestCodecs<C>): Call<C> =>
  (method, request) =>
    callUnary(client, method, codecs[method].fromPartial(request));
