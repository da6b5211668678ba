/**
 * The platform CA and a certificate per service (mutual TLS between the processes: platform grpc/mesh.ts),
 * made at the first start by platform grpc/meshCertificates.mjs and kept with the other generated secrets:
 * `make start` under DATA_DIR/mesh, `make cluster` under data/cluster/mesh (folders 700, files 600).
 * Layout: mesh/ca.crt and mesh/ca.key (the CA), mesh/<service>/{ca.crt,tls.crt,tls.key} (a cert-manager
 * Secret's keys, what GRPC_TLS_DIR points at). Each certificate's CN and DNS name is the service's name
 * (also localhost and 127.0.0.1: the services listen on loopback there), ECDSA P-256, for server and
 * client authentication. Kept files are used as they are; a missing one is made again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMeshIdentity, type MeshIdentity } from '@meridian/platform/grpc/mesh';
import { MESH_SERVICES } from '@meridian/platform/grpc/callers';
import { ensureMeshCertificates } from '@meridian/platform/grpc/meshCertificates';

/** The CA of `dir` and the certificate of each of `names` (every service and the gateway by default). */
export function keptMeshCertificates(dir: string, names: readonly string[] = MESH_SERVICES): MeshIdentity[] {
  ensureMeshCertificates(dir, names, { loopback: true });
  return names.map((name) => loadMeshIdentity(join(dir, name)));
}

let ephemeral: MeshIdentity[] | undefined;

/** A CA and certificates for a run that keeps nothing (a standalone in memory): made once per process. */
export function ephemeralMeshCertificates(): MeshIdentity[] {
  if (ephemeral) return ephemeral;
  const dir = mkdtempSync(join(tmpdir(), 'meridian-mesh-'));
  try {
    ephemeral = keptMeshCertificates(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ephemeral;
}
