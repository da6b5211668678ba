/**
 * Mutual TLS between the platform's processes. Every process holds the certificate of the service it is
 * (its common name is the service's name: `ledger`, `gateway`, ...), signed by the platform's CA, and
 * trusts that CA only. A server asks every client for its certificate and refuses the connection
 * without one signed by the CA; the caller's name is the certificate's common name (callers.ts then says
 * which caller may call which method). A client checks that the server's certificate names the service
 * it meant to reach.
 *
 * The identities of this process are registered here: a service run as its own program registers the
 * one in GRPC_TLS_DIR (ca.crt, tls.crt, tls.key: the layout of a cert-manager Secret); the standalone,
 * whose services share one process, registers every one. With none registered (a service's own tests),
 * servers and clients speak plaintext and no caller is checked: production refuses to start so.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { commonEnvValue } from '../config.js';

export interface MeshIdentity {
  /** The service's name: the common name of its certificate. */
  name: string;
  /** The platform CA's certificate (PEM). */
  ca: Buffer;
  /** This service's certificate (PEM), signed by the CA. */
  cert: Buffer;
  /** Its private key (PEM). */
  key: Buffer;
}

/** name -> its registrations, the latest last (several compositions of one process may register one name). */
const registrations = new Map<string, MeshIdentity[]>();
const identities = {
  get: (name: string) => registrations.get(name)?.at(-1),
  get size() {
    return registrations.size;
  },
  values: () => [...registrations.values()].map((list) => list.at(-1)!),
};

/** Registers identities of this process; the returned function unregisters them (once). */
export function registerMeshIdentities(list: readonly MeshIdentity[]): () => void {
  const entries = list.map((id) => ({ ...id }));
  for (const id of entries) registrations.set(id.name, [...(registrations.get(id.name) ?? []), id]);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const id of entries) {
      const left = (registrations.get(id.name) ?? []).filter((other) => other !== id);
      if (left.length) registrations.set(id.name, left);
      else registrations.delete(id.name);
    }
  };
}

/** Whether this process runs with mutual TLS (at least one identity registered). */
export const meshEnabled = (): boolean => registrations.size > 0;

/**
 * The identity this process presents as `name`; without a name, its only one. Undefined when none is
 * registered (plaintext). Throws when mutual TLS is on and `name` is not an identity of this process.
 */
export function meshIdentity(name?: string): MeshIdentity | undefined {
  if (identities.size === 0) return undefined;
  if (name === undefined) {
    if (identities.size === 1) return identities.values()[0];
    throw new Error('this process holds several service identities: say which one calls');
  }
  const id = identities.get(name);
  if (!id) throw new Error(`this process holds no certificate for "${name}"`);
  return id;
}

/** ca.crt, tls.crt and tls.key of `dir` (a cert-manager Secret's layout); the name is the certificate's CN. */
export function loadMeshIdentity(dir: string): MeshIdentity {
  const ca = readFileSync(join(dir, 'ca.crt'));
  const cert = readFileSync(join(dir, 'tls.crt'));
  const key = readFileSync(join(dir, 'tls.key'));
  const name = commonNameOf(new X509Certificate(cert).subject);
  if (!name) throw new Error(`${dir}/tls.crt names no service (no CN)`);
  return { name, ca, cert, key };
}

/**
 * A program's identity from GRPC_TLS_DIR, registered for the process: it must name `service`. Without
 * GRPC_TLS_DIR, plaintext outside production; production refuses to start (compose and infra/k8s mount
 * each service's certificate there).
 */
export function registerMeshFromEnv(service: string, env: Record<string, string | undefined>): void {
  const dir = commonEnvValue(env, 'GRPC_TLS_DIR');
  if (!dir) {
    if (commonEnvValue(env, 'NODE_ENV') === 'production')
      throw new Error(`${service}: GRPC_TLS_DIR is required in production (mutual TLS between the services)`);
    return;
  }
  const id = loadMeshIdentity(dir);
  if (id.name !== service)
    throw new Error(`GRPC_TLS_DIR holds the certificate of "${id.name}", not of "${service}"`);
  registerMeshIdentities([id]);
}

/** The CN of an X509 subject as Node prints it ("CN=ledger\nO=..."). */
function commonNameOf(subject: string): string | undefined {
  return subject
    .split('\n')
    .map((line) => line.match(/^CN=(.+)$/)?.[1])
    .find(Boolean);
}

/**
 * The service a gRPC path or service name belongs to: `meridian.<service>.v1.X` -> `<service>`;
 * undefined for anything else (the health service, test services).
 */
export function meshNameOf(pathOrService: string): string | undefined {
  return pathOrService.match(/^\/?meridian\.([a-z]+)\.v\d+\./)?.[1];
}

/** A server's credentials: its certificate, and a client certificate signed by the CA required. */
export const meshServerCredentials = (id: MeshIdentity): grpc.ServerCredentials =>
  grpc.ServerCredentials.createSsl(id.ca, [{ cert_chain: id.cert, private_key: id.key }], true);

/** A client's credentials: its certificate; the server's must be the CA's and name `server`. */
export function meshChannelCredentials(id: MeshIdentity, server: string): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(id.ca, id.key, id.cert, {
    checkServerIdentity: (_host, cert) =>
      cert.subject?.CN === server
        ? undefined
        : new Error(`the server presented "${String(cert.subject?.CN)}", not the "${server}" service`),
  });
}

/**
 * The calling service of a call on the wire: the CN of the certificate the client presented (grpc-js
 * exposes it only when the CA verified it), else undefined.
 */
export function callerOfAuthContext(
  auth: ReturnType<grpc.ServerUnaryCall<unknown, unknown>['getAuthContext']> | undefined,
): string | undefined {
  const cn = auth?.sslPeerCertificate?.subject?.CN;
  return typeof cn === 'string' && cn.length > 0 ? cn : undefined;
}
