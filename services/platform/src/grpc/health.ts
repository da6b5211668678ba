import * as grpc from '@grpc/grpc-js';

/**
 * grpc.health.v1.Health, implemented by hand (two one-field messages) so no .proto has to be
 * generated: https://github.com/grpc/grpc/blob/master/doc/health-checking.md
 */
export enum ServingStatus {
  UNKNOWN = 0,
  SERVING = 1,
  NOT_SERVING = 2,
  SERVICE_UNKNOWN = 3,
}

export interface HealthCheckRequest {
  service: string;
}
export interface HealthCheckResponse {
  status: ServingStatus;
}

function writeVarint(out: number[], value: number): void {
  let v = value >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

function readVarint(buf: Uint8Array, pos: { i: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos.i >= buf.length) throw new Error('truncated varint');
    const b = buf[pos.i++];
    if (shift < 32) result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return result >>> 0;
    shift += 7;
    if (shift > 63) throw new Error('varint too long');
  }
}

/** Decodes a message reading field 1 with the given wire type; unknown fields are skipped. */
function readField1(buf: Uint8Array, wireType: 0 | 2): number | string | undefined {
  const pos = { i: 0 };
  let value: number | string | undefined;
  while (pos.i < buf.length) {
    const tag = readVarint(buf, pos);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (wt === 0) {
      const v = readVarint(buf, pos);
      if (field === 1 && wireType === 0) value = v;
    } else if (wt === 2) {
      const len = readVarint(buf, pos);
      if (field === 1 && wireType === 2)
        value = Buffer.from(buf.subarray(pos.i, pos.i + len)).toString('utf8');
      pos.i += len;
    } else if (wt === 1) pos.i += 8;
    else if (wt === 5) pos.i += 4;
    else throw new Error(`unsupported wire type ${wt}`);
  }
  return value;
}

export const encodeHealthCheckRequest = (m: HealthCheckRequest): Buffer => {
  const out: number[] = [];
  const bytes = Buffer.from(m.service ?? '', 'utf8');
  if (bytes.length) {
    out.push(0x0a);
    writeVarint(out, bytes.length);
  }
  return Buffer.concat([Buffer.from(out), bytes]);
};
export const decodeHealthCheckRequest = (b: Buffer): HealthCheckRequest => ({
  service: (readField1(b, 2) as string) ?? '',
});
export const encodeHealthCheckResponse = (m: HealthCheckResponse): Buffer => {
  const out: number[] = [];
  if (m.status) {
    out.push(0x08);
    writeVarint(out, m.status);
  }
  return Buffer.from(out);
};
export const decodeHealthCheckResponse = (b: Buffer): HealthCheckResponse => ({
  status: ((readField1(b, 0) as number) ?? 0) as ServingStatus,
});

export const HealthService = {
  check: {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeHealthCheckRequest,
    requestDeserialize: decodeHealthCheckRequest,
    responseSerialize: encodeHealthCheckResponse,
    responseDeserialize: decodeHealthCheckResponse,
    originalName: 'Check',
  },
  watch: {
    path: '/grpc.health.v1.Health/Watch',
    requestStream: false,
    responseStream: true,
    requestSerialize: encodeHealthCheckRequest,
    requestDeserialize: decodeHealthCheckRequest,
    responseSerialize: encodeHealthCheckResponse,
    responseDeserialize: decodeHealthCheckResponse,
    originalName: 'Watch',
  },
} satisfies grpc.ServiceDefinition;

export interface HealthClient extends grpc.Client {
  check(
    request: HealthCheckRequest,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    callback: (error: grpc.ServiceError | null, response: HealthCheckResponse) => void,
  ): grpc.ClientUnaryCall;
  watch(
    request: HealthCheckRequest,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<HealthCheckResponse>;
}

export const HealthClient = grpc.makeGenericClientConstructor(
  HealthService,
  'grpc.health.v1.Health',
) as unknown as {
  new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options?: Partial<grpc.ClientOptions>,
  ): HealthClient;
};

/** Server-side state of the health service: status per service name ('' = the whole server). */
export class HealthImplementation {
  private statuses = new Map<string, ServingStatus>();
  private watchers = new Set<{
    service: string;
    call: grpc.ServerWritableStream<HealthCheckRequest, HealthCheckResponse>;
  }>();

  setStatus(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const w of this.watchers) if (w.service === service) w.call.write({ status });
  }

  setAll(status: ServingStatus): void {
    for (const service of this.statuses.keys()) this.setStatus(service, status);
  }

  /** Ends every Watch stream (so a graceful shutdown is not held open by them). */
  endWatches(): void {
    for (const w of this.watchers) w.call.end();
    this.watchers.clear();
  }

  readonly handlers: grpc.UntypedServiceImplementation = {
    check: (
      call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
      callback: grpc.sendUnaryData<HealthCheckResponse>,
    ) => {
      const status = this.statuses.get(call.request.service);
      if (status === undefined)
        callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
      else callback(null, { status });
    },
    watch: (call: grpc.ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => {
      const w = { service: call.request.service, call };
      this.watchers.add(w);
      call.write({ status: this.statuses.get(w.service) ?? ServingStatus.SERVICE_UNKNOWN });
      call.on('cancelled', () => this.watchers.delete(w));
      call.on('close', () => this.watchers.delete(w));
    },
  };
}
