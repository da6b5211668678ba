/**
 * The platform CA and a certificate per service (mutual TLS between the processes: platform grpc/mesh.ts),
 * generated at the first start with the openssl command-line tool and kept with the other generated
 * secrets: `make start` under DATA_DIR/mesh, `make cluster` under data/cluster/mesh (folders 700, files 600).
 * Layout: mesh/ca.crt and mesh/ca.key (the CA), mesh/<service>/{ca.crt,tls.crt,tls.key} (a cert-manager
 * Secret's keys, what GRPC_TLS_DIR points at). Each certificate's CN and DNS name is the service's name
 * (also localhost and 127.0.0.1: the services listen on loopback there), ECDSA P-256, for server and
 * client authentication. Kept files are used as they are; a missing one is made again.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMeshIdentity, type MeshIdentity } from '@meridian/platform/grpc/mesh';
import { MESH_SERVICES } from '@meridian/platform/grpc/callers';

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** A key pair and certificate: self-signed (the CA) or signed by the CA of `dir`. */
function issue(dir: string, keyFile: string, certFile: string, name: string, ca: boolean): void {
  openssl([
    'req',
    '-x509',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-subj',
    `/CN=${name}`,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    ...(ca
      ? [
          '-days',
          '3650',
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign,cRLSign',
        ]
      : [
          '-days',
          '825',
          '-CA',
          join(dir, 'ca.crt'),
          '-CAkey',
          join(dir, 'ca.key'),
          '-addext',
          `subjectAltName=DNS:${name},DNS:localhost,IP:127.0.0.1`,
          '-addext',
          'basicConstraints=critical,CA:FALSE',
          '-addext',
          'keyUsage=critical,digitalSignature,keyEncipherment',
          '-addext',
          'extendedKeyUsage=serverAuth,clientAuth',
        ]),
  ]);
  chmodSync(keyFile, 0o600);
  chmodSync(certFile, 0o600);
}

/** The CA of `dir` and the certificate of each of `names` (every service and the gateway by default). */
export function keptMeshCertificates(dir: string, names: readonly string[] = MESH_SERVICES): MeshIdentity[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  const freshCa = !existsSync(caKey) || !existsSync(caCert);
  if (freshCa) issue(dir, caKey, caCert, 'meridian-platform-ca', true);
  return names.map((name) => {
    const own = join(dir, name);
    mkdirSync(own, { recursive: true, mode: 0o700 });
    const key = join(own, 'tls.key');
    const cert = join(own, 'tls.crt');
    if (freshCa || !existsSync(key) || !existsSync(cert)) issue(dir, key, cert, name, false);
    // each service's folder holds the CA's certificate too (never its key)
    copyFileSync(caCert, join(own, 'ca.crt'));
    chmodSync(join(own, 'ca.crt'), 0o600);
    return loadMeshIdentity(own);
  });
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
